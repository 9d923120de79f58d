import { HE_ERROR_HTTP_STATUS, HeError, type HeErrorCode, plainDetails } from '@sealbox/he-core'
import { type ErrorReply, heErrorBody } from '@sealbox/he-core/client'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'

/** Fastify's own error codes, mapped onto ours (anything else falls back on its status). */
const FASTIFY_CODES: Record<string, HeErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_INPUT',
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_INPUT',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'INVALID_INPUT',
  FST_ERR_VALIDATION: 'INVALID_INPUT',
  FST_UNDER_PRESSURE: 'OVERLOADED',
  FST_ERR_NOT_FOUND: 'NOT_FOUND',
}

function codeForStatus(status: number): HeErrorCode {
  if (status === 404) return 'NOT_FOUND'
  if (status === 413) return 'PAYLOAD_TOO_LARGE'
  if (status === 415) return 'UNSUPPORTED_MEDIA_TYPE'
  if (status === 503) return 'OVERLOADED'
  if (status === 408 || status === 504) return 'TIMEOUT'
  if (status >= 400 && status < 500) return 'INVALID_INPUT'
  return 'INTERNAL'
}

function isFastifyError(error: unknown): error is FastifyError {
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'string'
}

/** A zod failure as a message naming the field: `query.k: expected number`. */
function describeZodError(error: z.ZodError, where: string): string {
  const issue = error.issues[0]
  if (!issue) return `${where}: invalid`
  return describeIssue(where, issue.path.map(String), issue.message)
}

function describeIssue(where: string, path: readonly string[], message: string): string {
  return `${[where, ...path].join('.')}: ${message}`
}

/** Fastify's names for the request parts it validates, as our messages name them. */
const REQUEST_PARTS: Record<string, string> = {
  body: 'body',
  params: 'params',
  querystring: 'query',
  headers: 'headers',
}

/**
 * A route's schema refused the request (Fastify's FST_ERR_VALIDATION, from the contract's
 * zod schemas): INVALID_INPUT naming the field as `describeZodError` does (`query.keySet: …`).
 */
function validationFailure(error: FastifyError): HeError | undefined {
  if (error.code !== 'FST_ERR_VALIDATION' || !error.validation) return undefined
  const where = REQUEST_PARTS[error.validationContext ?? ''] ?? 'request'
  const issue = error.validation[0]
  // The type provider writes a zod issue's path as a JSON pointer (`/inputs/x`).
  const path = issue?.instancePath.split('/').filter((segment) => segment !== '') ?? []
  return new HeError('INVALID_INPUT', describeIssue(where, path, issue?.message ?? 'invalid'), { cause: error })
}

/**
 * Turns anything thrown while handling a request into an `HeError`: ours pass
 * through, zod and Fastify errors become coded client errors, and anything else
 * becomes INTERNAL with a generic message (the original is logged, never sent).
 */
export function toRequestError(error: unknown): { error: HeError; internal: boolean } {
  // An INTERNAL HeError (a worker's I/O failure, say) may name files or internals: logged, never sent.
  if (error instanceof HeError && error.code !== 'INTERNAL') return { error, internal: false }
  if (error instanceof z.ZodError) {
    return {
      error: new HeError('INVALID_INPUT', describeZodError(error, 'request'), { cause: error }),
      internal: false,
    }
  }
  if (isFastifyError(error) && !(error instanceof HeError)) {
    const invalid = validationFailure(error)
    if (invalid) return { error: invalid, internal: false }
    const known = FASTIFY_CODES[error.code]
    const status = error.statusCode ?? 500
    const code = known ?? codeForStatus(status)
    if (code !== 'INTERNAL') {
      return { error: new HeError(code, error.message, { cause: error }), internal: false }
    }
  }
  // Anything else thrown on the loop is our bug (a TypeError is not an embind error here:
  // SEAL calls are wrapped where they are made), so toHeError's guesses do not apply.
  return { error: new HeError('INTERNAL', 'internal error', { cause: error }), internal: true }
}

/** The JSON body for an error (no stack, no cause), as the contract's error reply has it. */
export function errorBody(error: HeError): ErrorReply {
  return { error: heErrorBody(error, error.details && plainDetails(error.details)) }
}

/** 5xx answers that are load, not faults: the client retries, the operator reads /metrics, not the error log. */
const LOAD_CODES = new Set<HeErrorCode>(['OVERLOADED', 'TIMEOUT'])

/**
 * Why a database store may be unavailable for a while (`details.reason`): the store logs
 * these itself, rate-limited, so the request's own line (with its code) is enough — not
 * an error line with a stack for each of thousands of requests during an outage.
 */
const STORE_OUTAGE_REASONS = new Set<unknown>(['unreachable', 'acquire-timeout', 'lock-timeout', 'statement-timeout'])

const answeredCodes = new WeakMap<FastifyRequest, HeErrorCode>()

/** The error code a request was answered with, for its log line (undefined: it succeeded). */
export function answeredErrorCode(request: FastifyRequest): HeErrorCode | undefined {
  return answeredCodes.get(request)
}

/** Codes that always carry Retry-After (1 s unless the error says how long). */
const RETRYABLE = new Set<HeErrorCode>(['OVERLOADED', 'RATE_LIMITED', 'STORE_UNAVAILABLE'])

/** Fastify's "body too large" says neither the limit nor the route's name for it: ours does. */
function tooLarge(request: FastifyRequest, thrown: unknown): HeError | undefined {
  if (!isFastifyError(thrown) || thrown.code !== 'FST_ERR_CTP_BODY_TOO_LARGE') return undefined
  const limit = request.routeOptions.bodyLimit
  return new HeError('PAYLOAD_TOO_LARGE', `the body is larger than this route accepts (${limit} bytes)`, {
    cause: thrown,
    details: { limit },
  })
}

/**
 * Sends `error` with the status from `HE_ERROR_HTTP_STATUS`. Server-side failures
 * (5xx) carry the request id in `details.requestId` (it is in `x-request-id` too):
 * the client quotes it, the log has the details under it. An internal error's message
 * is replaced (it may name files or internals); it, its cause and every other fault
 * (a failed worker, an unavailable store) go to the log at error level. A client error
 * with a cause (SEAL's own text for a refused ciphertext, a zod issue) logs that cause
 * at info level; the client reads our message only.
 */
export function sendError(request: FastifyRequest, reply: FastifyReply, thrown: unknown): FastifyReply {
  const { error: coded, internal } = toRequestError(tooLarge(request, thrown) ?? thrown)
  const status = HE_ERROR_HTTP_STATUS[coded.code]
  const error =
    status >= 500
      ? new HeError(
          coded.code,
          internal ? `internal error: the server log has the details under request id ${request.id}` : coded.message,
          { cause: coded.cause, details: { ...coded.details, requestId: request.id } },
        )
      : coded
  answeredCodes.set(request, coded.code)
  // An outage the store logged itself (RateLimitedStoreLog: one line per kind per 10 s, no
  // stack): the request's own line carries its code, and nothing more is logged per request.
  const storeOutage = coded.code === 'STORE_UNAVAILABLE' && STORE_OUTAGE_REASONS.has(coded.details?.reason)
  if (internal) request.log.error({ err: thrown }, 'internal error')
  else if (status >= 500 && !LOAD_CODES.has(coded.code) && !storeOutage)
    request.log.error({ err: coded }, coded.message)
  else if (coded.cause !== undefined && !storeOutage) request.log.info({ err: coded }, `refused: ${coded.code}`)
  const seconds = error.details?.retryAfterSeconds
  if (typeof seconds === 'number' || RETRYABLE.has(error.code)) {
    reply.header('retry-after', String(typeof seconds === 'number' ? Math.max(1, Math.ceil(seconds)) : 1))
  }
  if (error.code === 'UNAUTHORIZED') reply.header('www-authenticate', 'Bearer')
  return reply.status(status).type('application/json; charset=utf-8').send(errorBody(error))
}

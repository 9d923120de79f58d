// How SealboxClient puts a request on the wire: its bearer token and executor header,
// the body's media type, and the retries of an idempotent call.
import { HeError } from '../errors/HeError.ts'
import type { ServerExecutorMode } from './contract/healthContract.ts'
import { SEALBOX_HEADERS } from './contract/httpContract.ts'
import { heErrorOfResponse } from './readReply.ts'
import {
  IDEMPOTENT_METHODS,
  NOT_RETRIED_CODES,
  RETRIED_STATUSES,
  type RetryPolicy,
  retryDelayMs,
  sleepUnlessAborted,
} from './retryPolicy.ts'

/** Where and as whom a client sends, and how it retries. */
export interface ClientTransport {
  baseUrl: string
  token: string | undefined
  executor: ServerExecutorMode | undefined
  fetch: typeof fetch
  retry: RetryPolicy
}

/** One request, ready to send. */
export interface OutgoingRequest {
  method: string
  /** The path and query string below the base URL. */
  path: string
  /** Bytes (sent as `contentType`) or a value sent as JSON. */
  body?: unknown
  /** The media type of a binary body. */
  contentType?: string
  headers?: Record<string, string>
  /** Statuses outside 2xx that are replies, not errors (a 503 readiness, a 304). */
  accept: readonly number[]
  /** A POST that may be sent twice (the route's contract says so). */
  idempotent: boolean
  signal?: AbortSignal
}

/** A response the caller reads, and how long the call took from the client's side. */
export interface RawResponse {
  response: Response
  elapsedMs: number
}

/**
 * Sends `request`; an error reply throws its HeError. An idempotent call (by its method,
 * or as its route says) is sent again after a 502, 503 or 504 from a proxy or a node, or
 * a failed connection, after the wait the server asked for (Retry-After) or a jittered
 * backoff.
 */
export async function sendRequest(transport: ClientTransport, request: OutgoingRequest): Promise<RawResponse> {
  const { method, path, signal } = request
  const idempotent = IDEMPOTENT_METHODS.includes(method) || request.idempotent
  const retries = idempotent ? transport.retry.attempts - 1 : 0
  for (let retry = 0; ; retry++) {
    let failure: HeError
    try {
      return await sendOnce(transport, request)
    } catch (error) {
      if (!(error instanceof HeError)) throw error
      failure = error
    }
    const status = failure.details?.status
    const retryable =
      failure.details?.network === true ||
      (typeof status === 'number' &&
        RETRIED_STATUSES.includes(status) &&
        // A proxy's own 504 page also reads as TIMEOUT: only the server's error body is final.
        !(failure.details?.hint !== undefined && NOT_RETRIED_CODES.includes(failure.code)))
    if (!retryable || retry >= retries) throw failure
    const after = failure.details?.retryAfterSeconds
    await sleepUnlessAborted(
      retryDelayMs(transport.retry, retry, typeof after === 'number' ? after : undefined),
      signal,
    ).catch((error: unknown) => {
      throw new HeError('CANCELLED', `${method} ${path} was aborted`, { cause: error })
    })
  }
}

async function sendOnce(transport: ClientTransport, request: OutgoingRequest): Promise<RawResponse> {
  const { method, path, body, signal } = request
  const headers: Record<string, string> = { ...request.headers }
  if (transport.token !== undefined) headers.authorization = `Bearer ${transport.token}`
  if (transport.executor !== undefined) headers[SEALBOX_HEADERS.executor] = transport.executor
  let payload: BodyInit | undefined
  if (body instanceof Uint8Array) {
    headers['content-type'] = request.contentType ?? 'application/octet-stream'
    payload = body as Uint8Array<ArrayBuffer>
  } else if (body !== undefined) {
    headers['content-type'] = 'application/json'
    payload = JSON.stringify(body)
  }
  const started = performance.now()
  let response: Response
  try {
    response = await transport.fetch(`${transport.baseUrl}${path}`, {
      method,
      headers,
      ...(payload === undefined ? {} : { body: payload }),
      ...(signal ? { signal } : {}),
    })
  } catch (error) {
    if (signal?.aborted) throw new HeError('CANCELLED', `${method} ${path} was aborted`, { cause: error })
    throw new HeError('INTERNAL', `${method} ${path}: the server could not be reached (${String(error)})`, {
      cause: error,
      details: { network: true },
    })
  }
  if (!response.ok && !request.accept.includes(response.status)) throw await heErrorOfResponse(response)
  return { response, elapsedMs: performance.now() - started }
}

import type { z } from 'zod'
import type { BytesLike } from '../envelope/asPlainUint8Array.ts'
import { HeError } from '../errors/HeError.ts'
import type { StepReport } from '../program/StepReport.ts'
import {
  EVALUATE_MAX_HEADER_BYTES,
  EVALUATE_MAX_INPUTS,
  EvaluateReplyHeaderSchema,
  type EvaluateRequestHeader,
  EvaluateRequestHeaderSchema,
} from './contract/evaluateContract.ts'
import { type EnvelopeMessageMagic, readEnvelopeMessage, writeEnvelopeMessage } from './envelopeMessage.ts'

/** An evaluate request: the JSON parts and the input envelopes by program input name. */
export type EvaluateRequest = Omit<EvaluateRequestHeader, 'inputs'> & { inputs: Record<string, Uint8Array> }

/** An evaluate reply: the output envelopes by name and every step's report. */
export interface EvaluateReply {
  outputs: Record<string, Uint8Array>
  steps: StepReport[]
}

function checked<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const field = issue?.path.length ? `${issue.path.join('.')}: ` : ''
  throw new HeError('INVALID_INPUT', `${what} header: ${field}${issue?.message ?? 'invalid'}`, { cause: parsed.error })
}

function byName(names: readonly string[], envelopes: readonly Uint8Array[], what: string): Record<string, Uint8Array> {
  if (envelopes.length !== names.length) {
    throw new HeError(
      'INVALID_INPUT',
      `${what}: the header names ${names.length} envelopes (${names.join(', ')}), the body holds ${envelopes.length}`,
    )
  }
  return Object.fromEntries(names.map((name, i) => [name, envelopes[i] as Uint8Array]))
}

/** Writes `header` (checked against `schema`) and the envelopes it names, in its names' order. */
function encodeMessage<S extends z.ZodType>(
  magic: EnvelopeMessageMagic,
  schema: S,
  header: z.input<S>,
  envelopes: Record<string, Uint8Array>,
  what: string,
): Uint8Array<ArrayBuffer> {
  const names = Object.keys(envelopes)
  const checkedHeader = checked(schema, header, what)
  return writeEnvelopeMessage(
    magic,
    checkedHeader,
    names.map((name) => envelopes[name] as Uint8Array),
    EVALUATE_MAX_HEADER_BYTES,
  )
}

/** Reads a message: its header checked against `schema`, and its envelopes. */
function decodeMessage<S extends z.ZodType>(
  body: BytesLike,
  magic: EnvelopeMessageMagic,
  schema: S,
  what: string,
): { header: z.output<S>; envelopes: Uint8Array[] } {
  const message = readEnvelopeMessage(body, {
    magic,
    what,
    maxHeaderBytes: EVALUATE_MAX_HEADER_BYTES,
    maxEnvelopes: EVALUATE_MAX_INPUTS,
  })
  return { header: checked(schema, message.header, what), envelopes: message.envelopes }
}

/**
 * The body of `POST /api/v1/evaluate`: a JSON header (`params`, `program`, the input
 * names, `keySet`) followed by the input envelopes as they are — a third smaller than
 * base64 in JSON, and the server only reads their frames on its event loop.
 */
export function encodeEvaluateRequest(request: EvaluateRequest): Uint8Array<ArrayBuffer> {
  const header = { ...request, inputs: Object.keys(request.inputs) }
  return encodeMessage('SBXE', EvaluateRequestHeaderSchema, header, request.inputs, 'evaluate request')
}

/**
 * Reads an evaluate request body (`encodeEvaluateRequest`): framing and the header's
 * shape only — `params` and `program` are for `parseParams` / `analyzeProgram`, and each
 * envelope is verified where it is loaded. Errors are INVALID_INPUT, INVALID_ENVELOPE or
 * LIMIT_EXCEEDED (more than `EVALUATE_MAX_INPUTS` envelopes, a header above 1 MiB).
 */
export function decodeEvaluateRequest(body: BytesLike): EvaluateRequest {
  const what = 'evaluate request'
  const { header, envelopes } = decodeMessage(body, 'SBXE', EvaluateRequestHeaderSchema, what)
  return { ...header, inputs: byName(header.inputs, envelopes, what) }
}

/** The body of an evaluate reply: `{ outputs: [name…], steps }` and the output envelopes. */
export function encodeEvaluateReply(reply: EvaluateReply): Uint8Array<ArrayBuffer> {
  const header = { outputs: Object.keys(reply.outputs), steps: reply.steps }
  return encodeMessage('SBXR', EvaluateReplyHeaderSchema, header, reply.outputs, 'evaluate reply')
}

/** Reads an evaluate reply (`encodeEvaluateReply`); the step reports are checked against their schema. */
export function decodeEvaluateReply(body: BytesLike): EvaluateReply {
  const what = 'evaluate reply'
  const { header, envelopes } = decodeMessage(body, 'SBXR', EvaluateReplyHeaderSchema, what)
  return { outputs: byName(header.outputs, envelopes, what), steps: header.steps }
}

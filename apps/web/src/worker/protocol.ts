import { ParamsSpec } from '@sealbox/he-core'
import { z } from 'zod'

/*
 * The one protocol between the page and the SEAL worker. Every request carries an
 * `id`; the worker answers with exactly one final reply of the type named in
 * REPLY_TYPE (or `failed`), possibly preceded by `progress` replies with the same id.
 * Types are inferred from the schemas, and both sides parse what they receive.
 */

const id = z.number().int().nonnegative()
const bytes = z.instanceof(Uint8Array)
const errorJson = z.object({
  code: z.string(),
  message: z.string(),
  hint: z.string().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
})

// ---------------------------------------------------------------- requests

export const helloRequest = z.object({ type: z.literal('hello'), id })
export const setParamsRequest = z.object({ type: z.literal('setParams'), id, params: ParamsSpec })

export const workerRequest = z.discriminatedUnion('type', [helloRequest, setParamsRequest])
export type WorkerRequest = z.infer<typeof workerRequest>
export type WorkerRequestType = WorkerRequest['type']

// ---------------------------------------------------------------- replies

export const helloReply = z.object({ type: z.literal('hello'), id, heapBytes: z.number().optional() })
export const paramsReadyReply = z.object({
  type: z.literal('paramsReady'),
  id,
  fingerprint: z.string(),
  /** BFV/BGV: the plain modulus prime SEAL picked. */
  plainModulus: z.bigint().optional(),
  contextMs: z.number(),
  heapBytes: z.number().optional(),
})
export const progressReply = z.object({
  type: z.literal('progress'),
  id,
  label: z.string(),
  done: z.number(),
  total: z.number(),
})
export const failedReply = z.object({ type: z.literal('failed'), id, error: errorJson })

export const workerReply = z.discriminatedUnion('type', [helloReply, paramsReadyReply, progressReply, failedReply])
export type WorkerReply = z.infer<typeof workerReply>
export type WorkerErrorJSON = z.infer<typeof errorJson>

/** The final reply type of each request type. */
export const REPLY_TYPE = {
  hello: 'hello',
  setParams: 'paramsReady',
} as const satisfies Record<WorkerRequestType, WorkerReply['type']>

/** A request of type `T`, without its id (the client assigns ids). */
export type RequestOf<T extends WorkerRequestType> = Omit<Extract<WorkerRequest, { type: T }>, 'id'>
/** The final reply to a request of type `T`. */
export type ReplyOf<T extends WorkerRequestType> = Extract<WorkerReply, { type: (typeof REPLY_TYPE)[T] }>
export type ProgressReply = z.infer<typeof progressReply>

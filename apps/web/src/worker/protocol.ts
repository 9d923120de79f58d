import { GaloisKeyChoice, KEY_KINDS, ParamsSpec, ProgramSpec, ProgramStep } from '@sealbox/he-core'
import { HeErrorBodySchema } from '@sealbox/he-core/client'
import { z } from 'zod'
import { SERVER_REPLIES, SERVER_REPLY_TYPE, SERVER_REQUESTS } from './serverProtocol.ts'

/*
 * The one protocol between the page and the SEAL worker. Every request carries an
 * `id`; the worker answers with exactly one final reply of the type named in
 * REPLY_TYPE (or `failed`), possibly preceded by `progress` replies with the same id.
 * Types are inferred from the schemas, and both sides parse what they receive.
 */

const id = z.number().int().nonnegative()
/** Bytes (an he-core envelope); structured clone keeps a Uint8Array a Uint8Array. */
export const bytes = z.custom<Uint8Array>((value) => value instanceof Uint8Array, 'expected bytes (Uint8Array)')
/** A failure crosses to the page as the server's error replies carry it: one shape for both. */
const errorJson = HeErrorBodySchema

// ---------------------------------------------------------------- requests

export const helloRequest = z.object({ type: z.literal('hello'), id })
export const setParamsRequest = z.object({ type: z.literal('setParams'), id, params: ParamsSpec })

const keyKind = z.enum(KEY_KINDS)

/** Generate keys: a fresh secret key, or new evaluation keys for the current one. */
export const generateKeysRequest = z.object({
  type: z.literal('generateKeys'),
  id,
  freshSecretKey: z.boolean(),
  relin: z.boolean(),
  galois: GaloisKeyChoice,
  /** Keep seeded (half-size) forms of the public/evaluation keys for download and upload. */
  seeded: z.boolean(),
})
/** Load a key from an envelope file (kind, parameters and key set are checked first). */
export const loadKeyRequest = z.object({ type: z.literal('loadKey'), id, kind: keyKind, envelope: bytes })
/** Serialize a key on demand (for keys too large to keep in the workspace). */
export const exportKeyRequest = z.object({ type: z.literal('exportKey'), id, kind: keyKind, seeded: z.boolean() })
export const dropKeysRequest = z.object({ type: z.literal('dropKeys'), id, kinds: z.array(keyKind) })

const valueKind = z.enum(['plaintext', 'ciphertext'])
const numbers = z.union([z.array(z.bigint()), z.array(z.number())])

/** Encode (and for a ciphertext, encrypt) a list of numbers as a named variable. */
export const createVariableRequest = z.object({
  type: z.literal('createVariable'),
  id,
  name: z.string(),
  kind: valueKind,
  values: numbers,
})
/** Encrypt a plaintext variable, or decrypt a ciphertext variable, into a new one. */
export const convertVariableRequest = z.object({
  type: z.literal('convertVariable'),
  id,
  source: z.string(),
  name: z.string(),
  to: valueKind,
})
/** Every slot of a variable, decoded (decrypting first when it is a ciphertext). */
export const decodeVariableRequest = z.object({ type: z.literal('decodeVariable'), id, name: z.string() })
/** Load a variable from an envelope file; `name` defaults to the file's label. */
export const loadVariableRequest = z.object({
  type: z.literal('loadVariable'),
  id,
  name: z.string().optional(),
  envelope: bytes,
})
export const dropVariableRequest = z.object({ type: z.literal('dropVariable'), id, name: z.string() })

/** Run one pipeline step (an he-core program step) on workspace values. */
export const runStepRequest = z.object({
  type: z.literal('runStep'),
  id,
  index: z.number().int(),
  step: ProgramStep,
  /** Keep a result whose noise budget ran out (to show its garbage) instead of refusing it. */
  anyway: z.boolean().optional(),
})
/** What is inside a key or a variable: parms id, level, scale, size, a plaintext's coefficients. */
export const inspectRequest = z.object({
  type: z.literal('inspect'),
  id,
  target: z.union([
    z.object({ kind: z.literal('variable'), name: z.string() }),
    z.object({ kind: z.literal('key'), key: keyKind }),
  ]),
})
/**
 * The exact (cleartext) results of a program, compared with the decrypted ones. CKKS:
 * `typed` gives the numbers the user typed for an input, and the exact answer is computed
 * on those (an input without them, e.g. uploaded, counts as its decrypted value).
 */
export const compareExactRequest = z.object({
  type: z.literal('compareExact'),
  id,
  program: ProgramSpec,
  typed: z.record(z.string(), z.array(z.number())).optional(),
})

export const workerRequest = z.discriminatedUnion('type', [
  ...SERVER_REQUESTS,
  runStepRequest,
  inspectRequest,
  compareExactRequest,
  createVariableRequest,
  convertVariableRequest,
  decodeVariableRequest,
  loadVariableRequest,
  dropVariableRequest,
  helloRequest,
  setParamsRequest,
  generateKeysRequest,
  loadKeyRequest,
  exportKeyRequest,
  dropKeysRequest,
])
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
  /** The context in use already had these parameters: nothing was built. */
  reused: z.boolean(),
  heapBytes: z.number().optional(),
})
/** One key as the workspace records it. */
export const keyReport = z.object({
  kind: keyKind,
  /** The he-core envelope; absent when the key is too large to keep outside the worker. */
  envelope: bytes.optional(),
  bytes: z.number(),
  ms: z.number().optional(),
  seeded: z.boolean(),
  steps: z.array(z.number().int()).optional(),
})
export type KeyReport = z.infer<typeof keyReport>

export const keysReadyReply = z.object({
  type: z.literal('keysReady'),
  id,
  keySetId: z.string(),
  keys: z.array(keyReport),
  /** Ciphertexts dropped because they belong to a replaced secret key. */
  dropped: z.array(z.string()).optional(),
  heapBytes: z.number().optional(),
})
/** A variable as the workspace records it: envelope, facts and the first decoded values. */
export const variableReport = z.object({
  name: z.string(),
  kind: valueKind,
  envelope: bytes,
  bytes: z.number(),
  /** Chain index (top level when fresh, 0 at the last level); BFV/BGV plaintexts have none. */
  level: z.number().optional(),
  /** Ciphertext size in polynomials (3 after a multiplication, until relinearized). */
  size: z.number().optional(),
  /** CKKS: log2 of the scale. */
  scaleBits: z.number().optional(),
  /** BFV/BGV ciphertexts with the secret key at hand: bits of noise budget left. */
  noiseBudget: z.number().optional(),
  /** The first decoded slots (absent when the secret key is not here). */
  preview: numbers.optional(),
  ms: z.number().optional(),
})
export type VariableReport = z.infer<typeof variableReport>

export const variableReadyReply = z.object({
  type: z.literal('variableReady'),
  id,
  variable: variableReport,
  /** Ciphertexts dropped because they belong to a replaced secret key. */
  dropped: z.array(z.string()).optional(),
  heapBytes: z.number().optional(),
})
export const decodedReply = z.object({ type: z.literal('decoded'), id, name: z.string(), values: numbers })

/** What a step did: time, and the level/size/noise budget or scale of its result. */
export const stepResult = z.object({
  timeMs: z.number(),
  level: z.number().optional(),
  size: z.number().optional(),
  noiseBudget: z.number().optional(),
  scaleBits: z.number().optional(),
})
export type StepResult = z.infer<typeof stepResult>

export const stepDoneReply = z.object({
  type: z.literal('stepDone'),
  id,
  index: z.number().int(),
  result: stepResult,
  variable: variableReport,
  heapBytes: z.number().optional(),
})

export const keyExportedReply = z.object({ type: z.literal('keyExported'), id, envelope: bytes })

/** What the inspector shows about a SEAL object (the envelope's bytes the page already has). */
export const inspection = z.object({
  /** SEAL's parms id: four 64-bit words, hex (all zero for a BFV/BGV plaintext: it belongs to no level). */
  parmsId: z.string(),
  level: z.number().optional(),
  /** Ciphertext polynomials, or the number of key-switching keys in relinearization/Galois keys. */
  size: z.number().optional(),
  scale: z.number().optional(),
  /** Primes of the coefficient modulus the object lives under. */
  primes: z.number().optional(),
  nttForm: z.boolean().optional(),
  /** Plaintexts: coefficient count, non-zero coefficients and the lowest-degree ones. */
  coeffCount: z.number().optional(),
  nonZeroCoeffs: z.number().optional(),
  coefficients: z.array(z.bigint()).optional(),
})
export type Inspection = z.infer<typeof inspection>
export const inspectedReply = z.object({ type: z.literal('inspected'), id, inspection })

/** One program output next to its exact value. */
export const exactComparison = z.object({
  name: z.string(),
  /** The first slots of the exact result. */
  expected: numbers,
  /** CKKS: largest |decrypted − exact| over all slots. */
  maxError: z.number().optional(),
  /** BFV/BGV: slots whose decrypted value is not the exact one. */
  wrongSlots: z.number().optional(),
  /** BFV/BGV: slots whose result wrapped around the plain modulus t (right mod t, not over the integers). */
  wrappedSlots: z.number().optional(),
  /** BFV/BGV: the integer results of the first wrapped slots. */
  wrappedExact: z.array(z.bigint()).optional(),
})
export type ExactComparison = z.infer<typeof exactComparison>
export const comparedReply = z.object({ type: z.literal('compared'), id, results: z.array(exactComparison) })
export const doneReply = z.object({ type: z.literal('done'), id, heapBytes: z.number().optional() })

export const progressReply = z.object({
  type: z.literal('progress'),
  id,
  label: z.string(),
  done: z.number(),
  total: z.number(),
})
export const failedReply = z.object({ type: z.literal('failed'), id, error: errorJson })

export const workerReply = z.discriminatedUnion('type', [
  ...SERVER_REPLIES,
  helloReply,
  paramsReadyReply,
  keysReadyReply,
  keyExportedReply,
  variableReadyReply,
  decodedReply,
  stepDoneReply,
  inspectedReply,
  comparedReply,
  doneReply,
  progressReply,
  failedReply,
])
export type WorkerReply = z.infer<typeof workerReply>
export type WorkerErrorJSON = z.infer<typeof errorJson>

/** The final reply type of each request type. */
export const REPLY_TYPE = {
  hello: 'hello',
  setParams: 'paramsReady',
  generateKeys: 'keysReady',
  loadKey: 'keysReady',
  exportKey: 'keyExported',
  dropKeys: 'done',
  createVariable: 'variableReady',
  convertVariable: 'variableReady',
  decodeVariable: 'decoded',
  loadVariable: 'variableReady',
  dropVariable: 'done',
  runStep: 'stepDone',
  inspect: 'inspected',
  compareExact: 'compared',
  ...SERVER_REPLY_TYPE,
} as const satisfies Record<WorkerRequestType, WorkerReply['type']>

/** A request of type `T`, without its id (the client assigns ids). */
export type RequestOf<T extends WorkerRequestType> = Omit<Extract<WorkerRequest, { type: T }>, 'id'>
/** The final reply to a request of type `T`. */
export type ReplyOf<T extends WorkerRequestType> = Extract<WorkerReply, { type: (typeof REPLY_TYPE)[T] }>
export type ProgressReply = z.infer<typeof progressReply>

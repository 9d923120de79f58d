import { KEY_KINDS, ParamsSpec } from '@sealbox/he-core'
import { ServerExecutorModeSchema } from '@sealbox/he-core/client'
import { z } from 'zod'
import { bytes, variableReport } from '../worker/protocol.ts'
import { DEFAULT_PARAMS_DRAFT, ParamsDraft } from './paramsDraft.ts'

/*
 * The sandbox workspace as plain data: what the page holds, what IndexedDB stores,
 * and what an exported workspace file contains. SEAL objects live in the worker;
 * here they are he-core envelopes (bytes) plus the facts shown about them.
 */

/** Parameters the worker has built a context for. */
export const AppliedParams = z.object({
  input: ParamsSpec,
  fingerprint: z.string(),
  /** BFV/BGV: the plain modulus prime SEAL chose. */
  plainModulus: z.bigint().optional(),
  contextMs: z.number(),
  /** The worker reused the context it held for these parameters (contextMs is then no build time). */
  reused: z.boolean().optional(),
})
export type AppliedParams = z.infer<typeof AppliedParams>

/** One key of the workspace. */
export const KeyEntry = z.object({
  kind: z.enum(KEY_KINDS),
  /** The he-core envelope; absent when too large to keep (it then lives only in the worker). */
  envelope: bytes.optional(),
  /** Serialized size in bytes. */
  bytes: z.number(),
  /** Generation time; absent for uploaded keys. */
  ms: z.number().optional(),
  seeded: z.boolean(),
  /** Galois keys: the rotation steps they cover. */
  steps: z.array(z.number().int()).optional(),
  source: z.enum(['generated', 'uploaded']),
  createdAt: z.number(),
})
export type KeyEntry = z.infer<typeof KeyEntry>

export const KeysState = z.object({
  keySetId: z.string().optional(),
  secretKey: KeyEntry.optional(),
  publicKey: KeyEntry.optional(),
  relinKeys: KeyEntry.optional(),
  galoisKeys: KeyEntry.optional(),
})
export type KeysState = z.infer<typeof KeysState>

/** A named plaintext or ciphertext of the workspace: what the worker reported, and where it came from. */
export const VariableEntry = variableReport.extend({
  /** How it came to be: typed numbers, an upload, a conversion, or a pipeline step. */
  origin: z.enum(['values', 'upload', 'convert', 'pipeline']),
  /** The numbers as typed (for 'values'): kept so generated code can reproduce the variable. */
  values: z.string().optional(),
  /** For 'convert': the variable it was encrypted or decrypted from. */
  source: z.string().optional(),
  createdAt: z.number(),
})
export type VariableEntry = z.infer<typeof VariableEntry>

/** What the last run of a pipeline step did. */
export const StepOutcome = z.union([
  z.object({
    status: z.literal('ok'),
    timeMs: z.number(),
    level: z.number().optional(),
    size: z.number().optional(),
    noiseBudget: z.number().optional(),
    scaleBits: z.number().optional(),
  }),
  z.object({ status: z.literal('failed'), code: z.string(), message: z.string() }),
])
export type StepOutcome = z.infer<typeof StepOutcome>

/**
 * One pipeline step as edited: every field any op may use, so switching the op keeps
 * what was typed. `toProgramStep` turns it into the he-core step of its op.
 */
export const PipelineEntry = z.object({
  id: z.string(),
  op: z.string(),
  a: z.string(),
  b: z.string(),
  steps: z.number().int(),
  exponent: z.number().int(),
  align: z.boolean(),
  out: z.string(),
  last: StepOutcome.optional(),
})
export type PipelineEntry = z.infer<typeof PipelineEntry>

/** Where the sandbox server lives and how to run there. */
export const ServerSettings = z.object({
  /** Empty: the same origin that served the sandbox. */
  baseUrl: z.string(),
  /** The executor to run on: the server contract's modes (a new mode there is one here). */
  mode: ServerExecutorModeSchema,
})
export type ServerSettings = z.infer<typeof ServerSettings>

export const WorkspaceState = z.object({
  version: z.literal(1),
  draft: ParamsDraft,
  applied: AppliedParams.optional(),
  keys: KeysState,
  variables: z.array(VariableEntry),
  pipeline: z.array(PipelineEntry),
  server: ServerSettings,
  /** The Code panel's Print ticks; absent until the learner changes them (then the pipeline's leaves). */
  print: z.array(z.string()).optional(),
})
export type WorkspaceState = z.infer<typeof WorkspaceState>

export function emptyWorkspace(): WorkspaceState {
  return {
    version: 1,
    draft: { ...DEFAULT_PARAMS_DRAFT },
    keys: {},
    variables: [],
    pipeline: [],
    server: { baseUrl: '', mode: 'pool' },
  }
}

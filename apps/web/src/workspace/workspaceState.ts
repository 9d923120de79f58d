import { ParamsSpec } from '@sealbox/he-core'
import { z } from 'zod'
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
})
export type AppliedParams = z.infer<typeof AppliedParams>

export const KEY_KINDS = ['secretKey', 'publicKey', 'relinKeys', 'galoisKeys'] as const
export type KeyKind = (typeof KEY_KINDS)[number]

/** One key of the workspace. */
export const KeyEntry = z.object({
  kind: z.enum(KEY_KINDS),
  /** The he-core envelope; absent when too large to keep (it then lives only in the worker). */
  envelope: z.instanceof(Uint8Array).optional(),
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

/** Where the sandbox server lives and how to run there. */
export const ServerSettings = z.object({
  /** Empty: the same origin that served the sandbox. */
  baseUrl: z.string(),
  mode: z.enum(['pool', 'inline']),
})
export type ServerSettings = z.infer<typeof ServerSettings>

export const WorkspaceState = z.object({
  version: z.literal(1),
  draft: ParamsDraft,
  applied: AppliedParams.optional(),
  keys: KeysState,
  server: ServerSettings,
})
export type WorkspaceState = z.infer<typeof WorkspaceState>

export function emptyWorkspace(): WorkspaceState {
  return {
    version: 1,
    draft: { ...DEFAULT_PARAMS_DRAFT },
    keys: {},
    server: { baseUrl: '', mode: 'pool' },
  }
}

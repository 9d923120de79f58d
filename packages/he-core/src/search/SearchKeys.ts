import type { GaloisKeys } from 'node-seal/throws'

/**
 * What the server needs from a user's keys: the key-set id and the Galois keys.
 * A `KeySet` fits, and so do `EvaluationKeys` (keys uploaded by a client).
 */
export interface SearchKeys {
  readonly id: string
  readonly galoisKeys: GaloisKeys | undefined
  readonly ctx: { readonly fingerprint: string }
}

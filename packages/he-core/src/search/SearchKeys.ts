import type { GaloisKeyWords } from '@sealbox/he-ring'
import type { GaloisKeys } from 'node-seal/throws'

/**
 * What the server needs from a user's keys: the key-set id and the Galois keys.
 * A `KeySet` fits, and so do `EvaluationKeys` (keys uploaded by a client) and
 * `KernelGaloisKeys` (the key-switching kernel's words only, no SEAL object).
 */
export interface SearchKeys {
  readonly id: string
  readonly galoisKeys: GaloisKeys | undefined
  /**
   * The Galois keys in the key-switching kernel's form (used instead of `galoisKeys` when present).
   * @internal
   */
  readonly kernelWords?: GaloisKeyWords | undefined
  readonly ctx: { readonly fingerprint: string }
}

import type { ParamsInput } from './ParamsSpec.ts'

/** What a user needs from parameters, in their own terms. */
export interface ParamsNeeds {
  /** Multiplications in a row (each one relinearized, CKKS: and rescaled). */
  depth: number
  /** Values per ciphertext. */
  slots: number
  /** BFV/BGV (integers): bits of the plain modulus — values live in ±(t − 1)/2. */
  plainBits?: number
  /**
   * Whole numbers: the scheme to suggest, BFV (the default) or BGV. A BGV chain is
   * levelled like CKKS: each multiplication is relinearized and mod-switched, dropping
   * one prime (without the switch, SEAL's BGV noise squares at every multiplication).
   */
  scheme?: 'bfv' | 'bgv'
  /** CKKS (reals): bits of precision wanted after the binary point. */
  precisionBits?: number
  /** HomomorphicEncryption.org security level (`none` is not suggested). */
  security: 'tc128' | 'tc192' | 'tc256'
}

/** One need the assistant cannot meet, in plain words, with the field it is about. */
export interface NeedsProblem {
  field: keyof ParamsNeeds
  message: string
}

/** Parameters that meet the needs, each choice with its reason, or every broken rule at once. */
export type ParamsSuggestion =
  | {
      ok: true
      params: ParamsInput & { coeffModulus: number[] }
      /** Why each choice was made, in the order they were made. */
      reasons: string[]
      totalBits: number
      maxBits: number
    }
  | { ok: false; problems: NeedsProblem[] }

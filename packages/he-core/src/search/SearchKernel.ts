import type { GaloisKeyWords } from '@sealbox/he-ring'
import type { Ciphertext, GaloisKeys, Plaintext } from 'node-seal/throws'
import type { Envelope } from '../envelope/decodeEnvelope.ts'
import type { HeContext } from '../params/HeContext.ts'
import type { SealScope } from '../scope/SealScope.ts'
import type { SearchConfig } from './SearchConfig.ts'
import type { SearchBlock } from './searchLayout.ts'

/** Which implementation runs the ciphertext × plaintext sums of a search. */
export type SearchKernelChoice = 'auto' | 'seal'

/**
 * What runs a search: `dyadic` (he-ring's sums kernel: no rotation, BGV in NTT form, data
 * primes below 2^32), `keySwitch` (he-ring's key-switching kernel: rotations too, BGV in
 * NTT form, every prime and t below 2^31) or `seal` (SEAL's evaluator: everything else).
 */
export type SearchKernelName = 'dyadic' | 'keySwitch' | 'seal'

/** One block of the processed database: plaintexts[b][a] = diagonal g·b + a, pre-rotated by −g·b. */
export interface ProcessedSearchBlock {
  block: SearchBlock
  plaintexts: Plaintext[][]
}

/** What one evaluation runs on. Every ciphertext it makes is tracked by `scope`. */
export interface SearchKernelInput {
  ctx: HeContext
  config: SearchConfig
  blocks: readonly ProcessedSearchBlock[]
  /** The loaded query: g ciphertexts (client-side baby steps) or 1 (none when `loadDirect` took it). */
  query: readonly Ciphertext[]
  galoisKeys: GaloisKeys | undefined
  /** The same keys in the key-switching kernel's form, when the caller holds only that (`KernelGaloisKeys`). */
  kernelKeys?: GaloisKeyWords | undefined
  scope: SealScope
  /**
   * Also hand `onBlock` each result's uncompressed SEAL save in coefficient form, where the
   * kernel has it for a pair of its own transforms (a response that drops low-order bits).
   */
  coefficientForm?: boolean
  /**
   * Receives each block's result, mod-switched to the last level, and with `coefficientForm`
   * (when the kernel makes it) its save in coefficient form; both are reused after return.
   */
  onBlock: (block: SearchBlock, result: Ciphertext, coefficients?: Uint8Array) => void
}

/**
 * The BSGS matrix–vector product of one processed index, one strategy per class:
 * `SealSearch` (SEAL's evaluator), `DyadicSearch` and `KeySwitchSearch` (he-ring's
 * WebAssembly kernels). `PrivateSearchIndex` holds one, chosen once when the database is
 * processed (`chooseSearchKernel`), and calls `loadDirect` or `loadQuery`, then `run`, for
 * every query. One thread, one query at a time.
 */
export interface SearchKernel {
  readonly name: SearchKernelName
  /**
   * True when the kernel holds its own copy of every diagonal, so SEAL's plaintexts can be
   * deleted once it is prepared; false when `run` reads them (`SealSearch`).
   */
  readonly ownsDiagonals: boolean
  /** Bytes of WebAssembly memory the kernel holds of its own, outside SEAL's heap (0 for SEAL's). */
  readonly heapBytes: number
  /**
   * Takes the query straight from its envelopes when the kernel can read their words in
   * place (checking each residue, as SEAL's load would). False (nothing done): the caller
   * loads the query through SEAL and then calls `loadQuery`.
   */
  loadDirect(items: readonly Envelope<'ciphertext'>[]): boolean
  /** Takes the query SEAL loaded (and checked); `items` are the envelopes it came from. */
  loadQuery(ctx: HeContext, query: readonly Ciphertext[], items: readonly Envelope<'ciphertext'>[]): void
  /** Evaluates every block of `input` against the loaded query. */
  run(input: SearchKernelInput): void
}

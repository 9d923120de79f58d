import type { SearchBlockRange } from './processSearchDatabase.ts'

/** Where one query's server time went (milliseconds). */
export interface SearchEvaluationTimings {
  /** Envelope checks of the query (checksums, ids, labels): JavaScript only. */
  decodeMs: number
  /** SEAL loads of the query ciphertexts (seed expansion, decompression). */
  loadMs: number
  /** The homomorphic work: rotations, multiplies, additions, mod switches. */
  computeMs: number
  /** SEAL saves of the results plus the response envelope. */
  saveMs: number
  totalMs: number
}

/** One evaluated query. */
export interface SearchEvaluation {
  /** The response envelope (a bundle of one ciphertext per block evaluated). */
  response: Uint8Array
  /** Block indices in the response. */
  blocks: number[]
  /** The key set the query (and so the response) belongs to. */
  keySetId: string
  timings: SearchEvaluationTimings
}

/** Options of `evaluate`. */
export interface SearchEvaluateOptions {
  /** Evaluate only these blocks (of those this index holds), to split one query across workers. */
  blocks?: SearchBlockRange
  /**
   * Whether packed response blocks drop the low-order bits `responseDroppedBits` allows
   * (default true). A server passes false unless the request accepts them: a client that
   * predates dropped bits refuses such blocks (INVALID_ENVELOPE), and reads full ones.
   */
  droppedBits?: boolean
  /**
   * The clock of the timings, in ms (default `performance.now`). A benchmark on a shared
   * machine passes the thread's CPU time so other processes do not inflate the phases.
   */
  clock?: () => number
}

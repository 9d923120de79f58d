import type { WorkloadCalls } from './serverBenchProtocol.ts'

/**
 * The workloads: private search (V=10000, D=16), a small HE program via `/api/v1/evaluate`,
 * and a heavy one (an inner product at n=8192, a program of realistic cost).
 */
export const WORKLOADS = ['search', 'program', 'program-heavy'] as const
export type Workload = (typeof WORKLOADS)[number]

/** One in-process evaluation of the Direct row (ms). */
export interface DirectTiming {
  /** The HE work alone (what the server books as `compute`). */
  computeMs: number
  /** Envelope checks and SEAL loads, compute, and saving the answer: the whole job a worker runs. */
  totalMs: number
}

/**
 * A workload prepared once, client side, before any server starts: the calls the load
 * generator sends through SealboxClient, the key set to upload, a check that an answer
 * decrypts to the plaintext oracle, and the same job run in-process (the Direct row).
 */
export interface PreparedWorkload extends Disposable {
  workload: Workload
  /** e.g. `Private search (V=10000, D=16, default config)`. */
  title: string
  /** Facts for the report (parameters, sizes). */
  facts: Record<string, string | number>
  /** The distinct requests, sent in turn. */
  calls: WorkloadCalls
  /** Evaluation keys to upload under `keySet.id` before the first request (none: the config needs none). */
  keySet: { id: string; bytes: Uint8Array } | undefined
  /** The search config id every server must serve (search only). */
  configId?: string
  /**
   * True when the answer to call `index` (the search response, or the program's first
   * output envelope) decrypts to exactly the oracle's values.
   */
  verify(index: number, answer: Uint8Array): boolean
  /** Runs the server's job for call `index` in this process. */
  runDirect(index: number): DirectTiming
}

import type { Workload } from './serverBenchFlags.ts'

/** One in-process evaluation of the Direct row (ms). */
export interface DirectTiming {
  /** The HE work alone (what the server books as `compute`). */
  computeMs: number
  /** Envelope checks and SEAL loads, compute, and saving the answer: the whole job a worker runs. */
  totalMs: number
}

/**
 * A workload prepared once, client side, before any server starts: request bodies
 * on disk (for the load generator), the key set to upload, a check that an answer
 * decrypts to the plaintext oracle, and the same job run in-process (the Direct row).
 */
export interface PreparedWorkload extends Disposable {
  workload: Workload
  /** e.g. `Private search (V=10000, D=16, default config)`. */
  title: string
  /** Facts for the report (parameters, sizes). */
  facts: Record<string, string | number>
  /** Request path, query string included. */
  path: string
  contentType: 'application/octet-stream' | 'application/json'
  /** One file per distinct request body. */
  bodyFiles: string[]
  /** Evaluation keys to upload under `keySet.id` before the first request (none: the config needs none). */
  keySet: { id: string; bytes: Uint8Array } | undefined
  /** The search config id every server must serve (search only). */
  configId?: string
  /** True when a 200 answer to body `index` decrypts to exactly the oracle's values. */
  verify(index: number, body: Uint8Array): boolean
  /** Runs the server's job for body `index` in this process. */
  runDirect(index: number): DirectTiming
}

/**
 * Header names of the sealbox API beyond HTTP's own: the server sets and reads them, the
 * client reads them, CORS exposes them. One definition, so a rename cannot miss a side.
 */
export const SEALBOX_HEADERS = {
  /** Request: the executor a benchmark asks for (only when the server allows overrides); reply: where the job ran. */
  executor: 'x-sealbox-executor',
  /** Search reply: each query's compute time in ms, comma-separated, in query order. */
  queryMs: 'x-sealbox-query-ms',
  /**
   * Search and evaluate reply: the cost units the job was charged (1 unit ≈
   * COST_UNIT_MS of a worker), its own work and what a worker first did for it — building
   * a context, loading keys it did not hold.
   */
  cost: 'x-sealbox-cost',
  /**
   * Search request: `accept` when the client restores response blocks that drop low-order
   * bits (he-core with `searchResponseDroppedBits`, SEARCH.md "Smaller responses"). Without
   * it the server answers every bit, which any he-core client reads: an older client, which
   * refuses dropped bits, never sends it.
   */
  droppedBits: 'x-sealbox-dropped-bits',
} as const

/**
 * The phases a reply may report in its `Server-Timing` header, in the order the server
 * writes them. `keyload`: key bytes fetched from the durable store; `keydeserialize`:
 * keys loaded into SEAL (absent when the worker already held them); `deserialize`: the
 * request's own ciphertexts; `transfer`: moving the job and its reply between the event
 * loop and the worker; `cpu`: the worker thread's CPU time on the job (not a wall-clock
 * phase); `decode` / `encode`: the route's own work on the event loop turning the body into
 * a job and the result into the reply.
 */
export const TIMING_PHASES = [
  'auth',
  'decode',
  'queue',
  'keyload',
  'keydeserialize',
  'deserialize',
  'compute',
  'serialize',
  'transfer',
  'encode',
  'store',
  'cpu',
] as const
export type TimingPhase = (typeof TIMING_PHASES)[number]

/** The metric the server writes after its phases in `Server-Timing`: the request's whole time on the server. */
export const TIMING_TOTAL = 'total'

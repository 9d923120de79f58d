/*
 * The cost-fairness scenario's record, in its own file: the report's types and the
 * scenario that measures it both use it without importing each other.
 */

/** Latencies of one series of requests, ms. */
export interface LatencySummary {
  requests: number
  p50: number | null
  p99: number | null
  max: number | null
}

/** The cost-fairness scenario's result (in the report as `costFlood`). */
export interface CostFloodRecord {
  /** The flood program as people read it, e.g. `x^64, twice (BFV n=4096)`. */
  program: string
  /** Its cost in he-core's cost units; the server's MAX_PROGRAM_COST is set just above it. */
  programCost: number
  maxProgramCost: number
  floodLanes: number
  floodSeconds: number
  /** The other tenant's searches with the server otherwise idle: client-side latency. */
  idleSearch: LatencySummary
  /** The same searches while the flood runs: client-side latency and the Server-Timing `queue` phase. */
  floodSearch: LatencySummary & { queueP50: number | null; queueMax: number | null }
  /** The flood programs' time in the worker (Server-Timing total − queue). */
  programJob: LatencySummary
  /** The search's longest queue wait ÷ the longest program: ≤ about 1 means one program at most. */
  waitInPrograms: number | null
  /** The first search answer during the flood decrypted to the oracle's scores. */
  verified: boolean
}

import type { ResolvedParams } from '@sealbox/he-core'
import type { ExecutorMode } from '../config/ServerConfig.ts'

/** Options of one submission through the hub. */
export interface HubSubmitOptions {
  /** Executor override (only when the server allows it). */
  mode?: ExecutorMode
  signal?: AbortSignal
  timeoutMs: number
  /**
   * How long the job's own work may run before its worker is stopped (default
   * REQUEST_TIMEOUT_MS from submission, whatever the body took); never shorter than `timeoutMs`.
   */
  workTimeoutMs?: number
  /** An evaluate job's estimated work in cost units (the route's program analysis); searches are priced here. */
  cost?: number
  /** An evaluate job's estimated peak heap (the route's program analysis); key uploads are sized here. */
  peakHeapBytes?: number
  /** An evaluate job's parameters as the route validated them (`parseEvaluateRequest`): not parsed again here. */
  params?: ResolvedParams
  /** Who sent it: per-address budgets (the inline executor's milliseconds, anonymous tenants' cost) are kept by it. */
  client?: JobClient
}

/** The client behind a job, for the budgets kept per client address. */
export interface JobClient {
  address: string
  /** A local-mode session's tenant: its address's anonymous tenants share one cost budget. */
  anonymous: boolean
}

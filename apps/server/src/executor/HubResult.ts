import type { ExecutorMode } from '../config/ServerConfig.ts'
import type { FailedJobResult, JobResultOf, WorkerJob } from './jobMessages.ts'
import type { Scheduled } from './SubmitOptions.ts'

/** How job `J` ended: its own result type, or the worker's error. */
export type JobOutcome<J extends WorkerJob> =
  | { ok: true; result: JobResultOf<J> }
  | { ok: false; error: FailedJobResult['error'] }

/** A finished job `J`, with the executor that ran it and its outcome, typed by the job. */
export interface HubResult<J extends WorkerJob = WorkerJob> extends Scheduled {
  mode: ExecutorMode
  /** Cost units charged: the job's own and the cold work before it (a context build, a key load). */
  chargedUnits: number
  outcome: JobOutcome<J>
}

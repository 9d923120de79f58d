import { HeError } from '@sealbox/he-core'
import type { EvaluateJob, JobResult } from '../executor/jobMessages.ts'
import type { JobContext, PhaseClock } from './PhaseClock.ts'

/** Runs an he-core program on the job's inputs (wired in once he-core exports its program runner). */
export async function runEvaluate(_job: JobContext, _request: EvaluateJob, _clock: PhaseClock): Promise<JobResult> {
  throw new HeError('INTERNAL', 'programs are not wired in yet')
}

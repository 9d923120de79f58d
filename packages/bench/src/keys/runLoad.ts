import { ChildTask } from '../core/ChildTask.ts'
import type { LoadJob, LoadResult } from './loadJob.ts'

const GENERATOR = new URL('./loadGenerator.ts', import.meta.url)

/**
 * Runs one load job in a separate Node process (`loadGenerator.ts`) and returns what it
 * measured. The process is killed if it overstays the job's own time bound by a minute.
 */
export async function runLoad(job: LoadJob): Promise<LoadResult> {
  // Warm-up and measured part are each bounded by maxSeconds.
  const limitMs = (2 * job.maxSeconds + 60) * 1000
  return ChildTask.start<LoadResult>('keys load generator', GENERATOR, job, limitMs).result
}

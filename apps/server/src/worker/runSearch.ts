import { HeError } from '@sealbox/he-core'
import type { JobResult, SearchJob } from '../executor/jobMessages.ts'
import { acquireKeys } from './acquireKeys.ts'
import type { JobContext, PhaseClock } from './PhaseClock.ts'

/**
 * Evaluates every query of a search job against the worker's processed database,
 * with the tenant's Galois keys from the worker's cache when the config needs them.
 */
export async function runSearch(job: JobContext, request: SearchJob, clock: PhaseClock): Promise<JobResult> {
  const search = job.search
  if (request.queries.length > job.setup.maxQueriesPerSearch) {
    throw new HeError('LIMIT_EXCEEDED', `at most ${job.setup.maxQueriesPerSearch} queries per search`)
  }
  if (search.galoisElements.length > 0 && !request.keys) {
    throw new HeError('MISSING_KEY', 'this search needs Galois keys: upload a key set and pass ?keySet=<id>')
  }
  const lease = request.keys
    ? await acquireKeys(
        job,
        search.ctx,
        request.keys,
        clock,
        request.keyBytes,
        request.galoisElements && { galoisElements: request.galoisElements, relinKeys: false },
      )
    : undefined
  try {
    const responses: Uint8Array[] = []
    const queryMs: number[] = []
    for (const query of request.queries) {
      const { response, timings } = search.evaluate(query, lease?.value ?? null, request.blocks)
      clock.add('deserialize', timings.decodeMs + timings.loadMs)
      clock.add('compute', timings.computeMs)
      clock.add('serialize', timings.saveMs)
      responses.push(response)
      queryMs.push(timings.totalMs)
    }
    return { type: 'searchResult', responses, queryMs }
  } finally {
    lease?.release()
  }
}

import { HeError } from '@sealbox/he-core'
import type { JobResult, SearchJob } from '../executor/jobMessages.ts'
import { acquireKeys } from './acquireKeys.ts'
import type { JobContext, PhaseClock } from './PhaseClock.ts'

/** Evaluates every query of a search job against the worker's processed database. */
export async function runSearch(job: JobContext, request: SearchJob, clock: PhaseClock): Promise<JobResult> {
  const search = job.search
  if (request.queries.length > job.setup.maxQueriesPerSearch) {
    throw new HeError('LIMIT_EXCEEDED', `at most ${job.setup.maxQueriesPerSearch} queries per search`)
  }
  const lease = request.keys ? await acquireKeys(job, search.ctx, request.keys, clock) : undefined
  try {
    if (search.galoisElements.length > 0) {
      if (!lease) throw new HeError('MISSING_KEY', 'this search configuration needs Galois keys: upload a key set')
      lease.value.requireGaloisElements(search.galoisElements, 'the search')
    }
    const responses: Uint8Array[] = []
    const queryMs: number[] = []
    for (const query of request.queries) {
      const start = performance.now()
      responses.push(clock.time('compute', () => search.evaluate(query, lease?.value)))
      queryMs.push(performance.now() - start)
    }
    return { type: 'searchResult', responses, queryMs }
  } finally {
    lease?.release()
  }
}

import { HeError } from '@sealbox/he-core'
import type { JobResult, SearchJob } from '../executor/jobMessages.ts'
import type { CacheLease } from '../executor/KeyCache.ts'
import type { KeyBlobRef } from '../store/KeyStore.ts'
import { acquireKeys } from './acquireKeys.ts'
import { acquireSearchKeys } from './acquireSearchKeys.ts'
import type { JobContext, PhaseClock, WorkerKeys } from './PhaseClock.ts'

/**
 * Evaluates every query of a search job against the worker's processed database,
 * with the tenant's Galois keys from the worker's cache when the config needs them.
 * Whether the job carries the keys the search needs is checked once, by the route
 * (`searchKeyNeeds`); a job without them is still refused by the index (MISSING_KEY).
 */
export async function runSearch(job: JobContext, request: SearchJob, clock: PhaseClock): Promise<JobResult> {
  const search = job.search
  if (request.queries.length > job.setup.maxQueriesPerSearch) {
    throw new HeError('LIMIT_EXCEEDED', `at most ${job.setup.maxQueriesPerSearch} queries per search`)
  }
  const lease = request.keys ? await searchKeys(job, request, request.keys, clock) : undefined
  try {
    const responses: Uint8Array[] = []
    const queryMs: number[] = []
    for (const query of request.queries) {
      const { response, timings } = search.evaluate(query, lease?.value ?? null, {
        ...(request.blocks ? { blocks: request.blocks } : {}),
        droppedBits: request.droppedBits === true,
      })
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

/**
 * The search's Galois keys in the form its index runs on: the key-switching kernel's
 * words of the search's elements (`acquireSearchKeys`), or — where the kernel does not
 * apply — SEAL's keys of the elements the queries use (`acquireKeys`, the whole set when
 * the job names none).
 */
function searchKeys(
  job: JobContext,
  request: SearchJob,
  keys: KeyBlobRef,
  clock: PhaseClock,
): Promise<CacheLease<WorkerKeys>> {
  if (job.search.index.kernel === 'keySwitch') return acquireSearchKeys(job, job.search, keys, clock, request.keyBytes)
  return acquireKeys(
    job,
    job.search.ctx,
    keys,
    clock,
    request.keyBytes,
    request.galoisElements && { galoisElements: request.galoisElements, relinKeys: false },
  )
}

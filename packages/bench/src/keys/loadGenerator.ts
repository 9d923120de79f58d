/**
 * The load generator of the keys benchmark, in its own process (started by `runLoad`
 * through ChildTask) so its work never shares an event loop with the server or the
 * orchestrator. It replays cached query bytes through SealboxClient (no SEAL work here)
 * for Zipf-chosen users, keeps `concurrency` requests in flight (the bench's one load
 * loop, `runLoadPhase`), first `warmupRequests` unrecorded, then until `requests` are
 * done or `maxSeconds` have passed. Each request's client latency and the server's
 * `Server-Timing` phases are recorded.
 */
import { SealboxClient } from '@sealbox/he-core/client'
import { BenchError } from '../BenchError.ts'
import { reportChildReady, serveChildTask } from '../core/ChildTask.ts'
import { clientFailure } from '../load/clientFailure.ts'
import { runLoadPhase } from '../load/runLoadPhase.ts'
import { LoadJobSchema, type LoadResult, type LoadSample } from './loadJob.ts'
import { benchTenant, readUserKeyMaterial } from './userKeyMaterial.ts'
import { ZipfSampler } from './zipf.ts'

serveChildTask<LoadResult>(async (input) => {
  const job = LoadJobSchema.parse(input)
  // Every 503 is a measured outcome here, not something to hide behind a retry.
  const server = new SealboxClient({ baseUrl: job.baseUrl, retry: false })
  const users = new Map<number, { query: Uint8Array; client: SealboxClient }>()
  for (let i = 0; i < job.users; i++) {
    const index = job.firstUser + i
    const distinct = job.distinctKeys ?? Number.POSITIVE_INFINITY
    const shared = index >= distinct ? users.get(index % distinct) : undefined
    const query =
      shared?.query ?? (await readUserKeyMaterial(job.cacheDir, job.configId, index, job.distinctKeys))?.query
    if (!query) throw new BenchError('INTERNAL', `no cached key material for user ${index}`)
    users.set(index, { query, client: server.with({ token: benchTenant(index).token }) })
  }
  reportChildReady()
  const sampler = new ZipfSampler(job.users, job.zipfS, job.seed)
  const keep = new Set(job.keepResponsesOf)
  const responses: Record<string, string> = {}
  let measuredStart = 0

  const one = async (record: boolean): Promise<LoadSample> => {
    const user = job.firstUser + sampler.next()
    const { query, client } = users.get(user) as { query: Uint8Array; client: SealboxClient }
    const started = performance.now()
    let outcome: Pick<LoadSample, 'status' | 'phases' | 'code'>
    try {
      const result = await client.search(query, { keySet: job.keySet })
      const answer = result.responses[0]
      if (record && answer && keep.has(user) && responses[user] === undefined) {
        responses[user] = Buffer.from(answer).toString('base64')
      }
      outcome = { status: 200, phases: result.timing }
    } catch (error) {
      outcome = clientFailure(error)
      // No answer at all (the server is gone): stop, as a failed run, rather than record noise.
      if (outcome.status === 0) throw error
    }
    return { user, latencyMs: performance.now() - started, startMs: started - measuredStart, ...outcome }
  }

  const phase = (total: number, record: boolean) =>
    runLoadPhase({
      concurrency: job.concurrency,
      total,
      deadline: performance.now() + job.maxSeconds * 1000,
      send: () => one(record),
    })
  // The warm-up (filling caches to their steady state) is bounded in time too.
  if (job.warmupRequests > 0) await phase(job.warmupRequests, false)
  measuredStart = performance.now()
  const { samples, stoppedBy } = await phase(job.requests, true)
  return { samples, wallMs: performance.now() - measuredStart, stoppedBy, responses }
})

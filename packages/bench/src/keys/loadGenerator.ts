/**
 * The load generator of the keys benchmark, in its own process so its work never
 * shares an event loop with the server or the orchestrator:
 *   node --conditions=@sealbox/source loadGenerator.ts <job.json> <result.json>
 * It replays cached query bytes through SealboxClient (no SEAL work here) for
 * Zipf-chosen users, keeps `concurrency` requests in flight, and stops after
 * `requests` requests or `maxSeconds`, whichever comes first. Each request's client
 * latency and the server's `Server-Timing` phases are recorded.
 */
import { readFile, writeFile } from 'node:fs/promises'
import process from 'node:process'
import { SealboxClient } from '@sealbox/he-core/client'
import { BenchError } from '../BenchError.ts'
import { clientFailure } from '../load/clientFailure.ts'
import { LoadJobSchema, type LoadResult, type LoadSample } from './loadJob.ts'
import { benchTenant, readUserKeyMaterial } from './userKeyMaterial.ts'
import { ZipfSampler } from './zipf.ts'

async function main(): Promise<void> {
  const [jobFile, resultFile] = process.argv.slice(2)
  if (!jobFile || !resultFile) throw new BenchError('INVALID_FLAGS', 'usage: loadGenerator.ts <job.json> <result.json>')
  const job = LoadJobSchema.parse(JSON.parse(await readFile(jobFile, 'utf8')))
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
  const sampler = new ZipfSampler(job.users, job.zipfS, job.seed)
  const keep = new Set(job.keepResponsesOf)
  const responses: Record<string, string> = {}
  const samples: LoadSample[] = []
  const total = job.warmupRequests + job.requests
  let issued = 0
  let measuredStart = 0
  let deadline = Number.POSITIVE_INFINITY
  let stoppedBy: LoadResult['stoppedBy'] = 'requests'

  const one = async (user: number, record: boolean): Promise<void> => {
    const { query, client } = users.get(user) as { query: Uint8Array; client: SealboxClient }
    const started = performance.now()
    let answer: Uint8Array | undefined
    let outcome: Pick<LoadSample, 'status' | 'phases' | 'code'>
    try {
      const result = await client.search(query, { keySet: job.keySet })
      answer = result.responses[0]
      outcome = { status: 200, phases: result.timing }
    } catch (error) {
      outcome = clientFailure(error)
      // No answer at all (the server is gone): stop, as a failed run, rather than record noise.
      if (outcome.status === 0) throw error
    }
    const latencyMs = performance.now() - started
    if (!record) return
    if (answer && keep.has(user) && responses[user] === undefined) {
      responses[user] = Buffer.from(answer).toString('base64')
    }
    samples.push({ user, latencyMs, startMs: started - measuredStart, ...outcome })
  }

  const lane = async (): Promise<void> => {
    for (;;) {
      if (issued >= total) return
      if (performance.now() > deadline) {
        stoppedBy = 'time'
        return
      }
      const n = issued++
      if (n === job.warmupRequests) {
        // Every lane past this point measures; in-flight warm-up requests finish unrecorded.
        measuredStart = performance.now()
        deadline = measuredStart + job.maxSeconds * 1000
      }
      await one(job.firstUser + sampler.next(), n >= job.warmupRequests)
    }
  }
  if (job.warmupRequests === 0) {
    measuredStart = performance.now()
    deadline = measuredStart + job.maxSeconds * 1000
  } else {
    // The warm-up is bounded in time too.
    deadline = performance.now() + job.maxSeconds * 1000
  }
  await Promise.all(Array.from({ length: job.concurrency }, () => lane()))
  const wallMs = performance.now() - measuredStart
  const result: LoadResult = { samples, wallMs, stoppedBy, responses }
  await writeFile(resultFile, JSON.stringify(result))
}

main().catch((error: unknown) => {
  process.stderr.write(`loadGenerator: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
})

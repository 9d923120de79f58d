/**
 * The load generator of the keys benchmark, in its own process so its work never
 * shares an event loop with the server or the orchestrator:
 *   node --conditions=@sealbox/source loadGenerator.ts <job.json> <result.json>
 * It replays cached query bytes (no SEAL work here) for Zipf-chosen users, keeps
 * `concurrency` requests in flight, and stops after `requests` requests or
 * `maxSeconds`, whichever comes first. Each request's client latency and the
 * server's `Server-Timing` phases are recorded.
 */
import { readFile, writeFile } from 'node:fs/promises'
import process from 'node:process'
import { parseServerTiming } from '@sealbox/he-core/client'
import { LoadJobSchema, type LoadResult, type LoadSample } from './loadJob.ts'
import { benchTenant, readUserKeyMaterial } from './userKeyMaterial.ts'
import { ZipfSampler } from './zipf.ts'

async function main(): Promise<void> {
  const [jobFile, resultFile] = process.argv.slice(2)
  if (!jobFile || !resultFile) throw new Error('usage: loadGenerator.ts <job.json> <result.json>')
  const job = LoadJobSchema.parse(JSON.parse(await readFile(jobFile, 'utf8')))
  const queries = new Map<number, Uint8Array>()
  for (let i = 0; i < job.users; i++) {
    const index = job.firstUser + i
    const material = await readUserKeyMaterial(job.cacheDir, job.configId, index)
    if (!material) throw new Error(`no cached key material for user ${index}`)
    queries.set(index, material.query)
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
    const { token } = benchTenant(user)
    const started = performance.now()
    const response = await fetch(`${job.baseUrl}/api/v1/search?keySet=${encodeURIComponent(job.keySet)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
      body: queries.get(user) as Uint8Array<ArrayBuffer>,
    })
    const body = new Uint8Array(await response.arrayBuffer())
    const latencyMs = performance.now() - started
    if (!record) return
    const sample: LoadSample = {
      user,
      status: response.status,
      latencyMs,
      phases: parseServerTiming(response.headers.get('server-timing') ?? ''),
      startMs: started - measuredStart,
    }
    if (response.status !== 200) {
      try {
        sample.code = (JSON.parse(new TextDecoder().decode(body)) as { error?: { code?: string } }).error?.code
      } catch {
        sample.code = 'UNPARSEABLE'
      }
    } else if (keep.has(user) && responses[user] === undefined) {
      responses[user] = Buffer.from(body).toString('base64')
    }
    samples.push(sample)
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

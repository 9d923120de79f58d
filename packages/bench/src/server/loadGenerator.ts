/**
 * The load generator of `benchmark:server`, in its own process (started by
 * ChildTask): replays prepared request bodies (no SEAL work here) with
 * `concurrency` requests in flight over keep-alive connections (undici's fetch
 * pool: one connection per in-flight request), first `warmupRequests` unrecorded,
 * then until `requests` are done or `maxSeconds` have passed. Each request's client
 * latency and the server's `Server-Timing` phases are recorded; the server's
 * event-loop delay is read from `/metrics` right before and after the measured part
 * (prom-client resets its histogram on every scrape, so the second read covers exactly it).
 */
import { readFile } from 'node:fs/promises'
import { reportChildReady, serveChildTask } from './ChildTask.ts'
import { parseLoopDelay } from './parseLoopDelay.ts'
import { LoadJobSchema, type LoadResult, type LoopDelayReading, type RequestSample } from './serverBenchProtocol.ts'
import { serverTimingPhases } from './serverTimingPhases.ts'

const epochNow = () => performance.timeOrigin + performance.now()

async function scrapeLoopDelay(baseUrl: string): Promise<LoopDelayReading | undefined> {
  const response = await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(30_000) })
  if (!response.ok) throw new Error(`GET /metrics: HTTP ${response.status}`)
  return parseLoopDelay(await response.text())
}

serveChildTask<LoadResult>(async (input) => {
  const job = LoadJobSchema.parse(input)
  const bodies = await Promise.all(
    job.bodyFiles.map(async (file) =>
      job.contentType === 'application/json' ? readFile(file, 'utf8') : new Uint8Array(await readFile(file)),
    ),
  )
  reportChildReady()
  const url = `${job.baseUrl}${job.path}`
  const headers = { authorization: `Bearer ${job.token}`, 'content-type': job.contentType }
  const firstResponses: Record<number, Uint8Array> = {}
  let measuredStart = 0

  const one = async (index: number, record: boolean): Promise<RequestSample> => {
    const bodyIndex = index % bodies.length
    const started = performance.now()
    const sample: RequestSample = { latencyMs: 0, status: 0, phases: {}, startMs: started - measuredStart }
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers,
        body: bodies[bodyIndex] as string | Uint8Array<ArrayBuffer>,
        signal: AbortSignal.timeout(job.requestTimeoutMs),
      })
      const body = new Uint8Array(await response.arrayBuffer())
      sample.latencyMs = performance.now() - started
      sample.status = response.status
      sample.phases = serverTimingPhases(response.headers.get('server-timing'))
      if (response.status !== 200) {
        try {
          sample.code = (JSON.parse(new TextDecoder().decode(body)) as { error?: { code?: string } }).error?.code
        } catch {
          sample.code = `HTTP ${response.status}`
        }
      } else if (record && firstResponses[bodyIndex] === undefined) {
        firstResponses[bodyIndex] = body
      }
    } catch (error) {
      sample.latencyMs = performance.now() - started
      sample.code = error instanceof Error && error.name === 'TimeoutError' ? 'CLIENT_TIMEOUT' : 'NETWORK_ERROR'
    }
    return sample
  }

  /** Keeps `concurrency` requests in flight until `total` are sent or the deadline passes. */
  const phase = async (total: number, deadline: number, record: boolean) => {
    const samples: RequestSample[] = []
    let issued = 0
    let stoppedBy: LoadResult['stoppedBy'] = 'requests'
    const lane = async () => {
      for (;;) {
        if (issued >= total) return
        if (performance.now() >= deadline) {
          stoppedBy = 'time'
          return
        }
        const sample = await one(issued++, record)
        if (record) samples.push(sample)
      }
    }
    await Promise.all(Array.from({ length: Math.min(job.concurrency, total) }, lane))
    return { samples, stoppedBy }
  }

  if (job.warmupRequests > 0) await phase(job.warmupRequests, performance.now() + job.maxSeconds * 1000, false)
  if (job.scrapeLoopDelay) await scrapeLoopDelay(job.baseUrl)
  const startEpochMs = epochNow()
  measuredStart = performance.now()
  const { samples, stoppedBy } = await phase(job.requests, measuredStart + job.maxSeconds * 1000, true)
  const wallMs = performance.now() - measuredStart
  const endEpochMs = epochNow()
  const loopDelay = job.scrapeLoopDelay ? await scrapeLoopDelay(job.baseUrl) : undefined
  return { samples, window: { startEpochMs, endEpochMs }, wallMs, stoppedBy, firstResponses, loopDelay }
})

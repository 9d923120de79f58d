/**
 * The bench's one load generator (`benchmark:server`, `benchmark:keys`, the search
 * benchmark's throughput rows), in its own process (started by ChildTask): replays the
 * workload's prepared calls as its users (one token, or a Zipf-chosen user per request)
 * through `SealboxClient` (no SEAL work here: the client entry does not load
 * node-seal) with `concurrency` requests in flight over keep-alive connections
 * (undici's fetch pool: one connection per in-flight request), first
 * `warmupRequests` unrecorded, then until `requests` are done or `maxSeconds` have
 * passed. Each request's client latency and the server's `Server-Timing` phases are
 * recorded; the server's `/metrics` are read right before and after the measured part:
 * its event-loop delay (prom-client resets its histogram on every scrape, so the second
 * read covers exactly it) and its process CPU time (the difference of the two reads).
 */
import { SealboxClient } from '@sealbox/he-core/client'
import { reportChildReady, serveChildTask } from '../core/ChildTask.ts'
import { clientFailure } from './clientFailure.ts'
import { parseLoopDelay } from './parseLoopDelay.ts'
import { runLoadPhase } from './runLoadPhase.ts'
import { parsePrometheus, processCpuSeconds } from './scrapeMetrics.ts'
import { sendWorkloadCall, workloadCallCount } from './sendWorkloadCall.ts'
import { LoadJobSchema, type LoadResult, type LoopDelayReading, type RequestSample } from './serverBenchProtocol.ts'
import { ZipfSampler } from './zipf.ts'

const epochNow = () => performance.timeOrigin + performance.now()

async function scrapeServer(server: SealboxClient): Promise<{ loopDelay?: LoopDelayReading; cpuSeconds?: number }> {
  const text = await server.metrics({ signal: AbortSignal.timeout(30_000) })
  const cpuSeconds = processCpuSeconds(parsePrometheus(text))
  const loopDelay = parseLoopDelay(text)
  return { ...(loopDelay ? { loopDelay } : {}), ...(cpuSeconds === undefined ? {} : { cpuSeconds }) }
}

serveChildTask<LoadResult>(async (input) => {
  const job = LoadJobSchema.parse(input)
  // Every 503 is a measured outcome here, not something to hide behind a retry.
  const server = new SealboxClient({ baseUrl: job.baseUrl, retry: false })
  const clients = job.tokens.map((token) => server.with({ token }))
  const distinct = workloadCallCount(job.calls)
  const sampler = job.zipf && new ZipfSampler(clients.length, job.zipf.s, job.zipf.seed)
  const keep = job.keepResponsesOf && new Set(job.keepResponsesOf)
  reportChildReady()
  const firstResponses: Record<number, Uint8Array> = {}
  let measuredStart = 0

  const one = async (index: number, record: boolean): Promise<RequestSample> => {
    const user = sampler ? sampler.next() : index
    const callIndex = user % distinct
    const signal = job.requestTimeoutMs === undefined ? undefined : AbortSignal.timeout(job.requestTimeoutMs)
    const client = clients[user % clients.length] as SealboxClient
    const started = performance.now()
    const sample: RequestSample = { latencyMs: 0, status: 0, phases: {}, startMs: started - measuredStart }
    try {
      const { answer, phases } = await sendWorkloadCall(client, job.calls, callIndex, signal)
      sample.latencyMs = performance.now() - started
      sample.status = 200
      sample.phases = phases
      if (record && (keep?.has(callIndex) ?? true) && firstResponses[callIndex] === undefined) {
        firstResponses[callIndex] = answer
      }
    } catch (error) {
      sample.latencyMs = performance.now() - started
      const failure = clientFailure(error, signal)
      // No answer at all (the server is gone): a failed run, when the job says so, rather than noise.
      if (failure.status === 0 && job.failWithoutAnswer) throw error
      sample.status = failure.status
      sample.phases = failure.phases
      sample.code = failure.code
    }
    return sample
  }

  const phase = (total: number, deadline: number, record: boolean) =>
    runLoadPhase({ concurrency: job.concurrency, total, deadline, send: (index) => one(index, record) })

  if (job.warmupRequests > 0) await phase(job.warmupRequests, performance.now() + job.maxSeconds * 1000, false)
  const before = job.scrapeMetrics ? await scrapeServer(server) : undefined
  const startEpochMs = epochNow()
  measuredStart = performance.now()
  const { samples, stoppedBy } = await phase(job.requests, measuredStart + job.maxSeconds * 1000, true)
  const wallMs = performance.now() - measuredStart
  const endEpochMs = epochNow()
  const after = job.scrapeMetrics ? await scrapeServer(server) : undefined
  const cpuSeconds = [before?.cpuSeconds, after?.cpuSeconds]
  return {
    samples,
    window: { startEpochMs, endEpochMs },
    wallMs,
    stoppedBy,
    firstResponses,
    loopDelay: after?.loopDelay,
    ...(cpuSeconds[0] !== undefined && cpuSeconds[1] !== undefined
      ? { serverCpuMs: (cpuSeconds[1] - cpuSeconds[0]) * 1000 }
      : {}),
  }
})

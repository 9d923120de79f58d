/**
 * The `/healthz` prober of `benchmark:server`, in its own process (started by
 * ChildTask): an open-loop prober — probes leave on a fixed schedule whether or not
 * earlier ones have come back, so a stalled server cannot slow the prober down and
 * hide its own stall. Two kinds alternate, each at `hz` per second: a fresh TCP
 * connection per probe (`Connection: close`, what a kubelet's HTTP probe does) and
 * reused keep-alive connections. Runs until the parent says stop, then reports.
 * It asks for a slightly higher scheduling priority (nice -5, when allowed): it uses
 * almost no CPU, and on a busy machine its own wake-ups should not be what it measures.
 */
import { Agent, request } from 'node:http'
import { getPriority, setPriority } from 'node:os'
import { BenchError } from '../BenchError.ts'
import { reportChildReady, serveChildTask } from '../core/ChildTask.ts'
import {
  PROBE_KINDS,
  ProbeJobSchema,
  type ProbeKind,
  type ProbeResult,
  type ProbeSample,
} from '../load/serverBenchProtocol.ts'

const epochOf = (now: number) => performance.timeOrigin + now

serveChildTask<ProbeResult>(async (input, stopped) => {
  const job = ProbeJobSchema.parse(input)
  try {
    setPriority(-5)
  } catch {
    // Not allowed (not root, no CAP_SYS_NICE): probe at the normal priority; the report says which.
  }
  const target = new URL('/healthz', job.baseUrl)
  const keepAlive = new Agent({ keepAlive: true })

  const probe = (kind: ProbeKind, scheduledAt: number): Promise<ProbeSample> =>
    new Promise((resolve) => {
      const sentAt = performance.now()
      const sample: ProbeSample = {
        kind,
        sentAtEpochMs: epochOf(sentAt),
        lateMs: Math.max(0, sentAt - scheduledAt),
        latencyMs: 0,
        ok: false,
      }
      let done = false
      const finish = (error?: string) => {
        if (done) return
        done = true
        sample.latencyMs = performance.now() - sentAt
        if (error !== undefined) sample.error = error
        resolve(sample)
      }
      const req = request(
        target,
        {
          method: 'GET',
          agent: kind === 'fresh' ? false : keepAlive,
          headers: kind === 'fresh' ? { connection: 'close' } : {},
        },
        (res) => {
          res.resume()
          res.once('end', () => {
            sample.ok = res.statusCode === 200
            finish(sample.ok ? undefined : `HTTP ${res.statusCode}`)
          })
          res.once('error', (error) => finish(error.message))
        },
      )
      req.setTimeout(job.timeoutMs, () => req.destroy(new BenchError('TIMEOUT', 'timeout')))
      req.once('error', (error) => finish(error.message))
      req.end()
    })

  reportChildReady()
  const pending: Promise<ProbeSample>[] = []
  const spacing = 1000 / (job.hz * PROBE_KINDS.length)
  const start = performance.now()
  await new Promise<void>((resolve) => {
    let k = 0
    const tick = () => {
      if (stopped.aborted) {
        resolve()
        return
      }
      const scheduledAt = start + k * spacing
      pending.push(probe(PROBE_KINDS[k % PROBE_KINDS.length] as ProbeKind, scheduledAt))
      k++
      setTimeout(tick, Math.max(0, start + k * spacing - performance.now()))
    }
    tick()
  })
  const samples = await Promise.all(pending)
  keepAlive.destroy()
  return { samples, priority: getPriority() }
})

import { mean, percentile, type Spread, spread } from '../core/stats.ts'
import type { RequestSample } from '../load/serverBenchProtocol.ts'
import { cpuShares, type ThreadCpuSplit, totalCpu } from '../load/threadCpu.ts'

/** One server variant × client count, measured through a real server over HTTP. */
export interface ThroughputCell {
  /** The server's worker threads (`EXECUTOR=pool`, `WORKERS`). */
  workers: number
  /** Closed-loop clients (requests in flight). */
  concurrency: number
  startedAt: string
  loadAverage: [number, number, number]
  /** Answered queries in the measured part. */
  requests: number
  /** Requests that got no 200 answer. */
  errors: number
  wallMs: number
  stoppedBy: 'requests' | 'time'
  /** Answered queries per second of wall time. */
  qps: number
  /** `qps` ÷ the cores the server's workers can use (min(workers, machine cores)). */
  qpsPerWorkerCore: number
  /** Client latency, send to the whole answer read (ms). */
  latencyP50: number
  latencyP99: number
  /** Server-Timing `compute` and `total` medians (ms). */
  computeP50: number
  totalP50: number
  /** Mean worker-thread CPU per query (Server-Timing `cpu`, ms): the job alone. */
  workerCpuMs: number
  /**
   * CPU of the whole server process per answered query (ms; every thread: HTTP, event
   * loop, workers), from `/metrics` read before and after the measured part; null when unread.
   */
  serverCpuMs: number | null
  /** 1000 ÷ `serverCpuMs`: the queries per second one core would serve at that CPU cost. */
  qpsPerCpuCore: number | null
  /**
   * How the server process's CPU split between its threads over the cell (warm-up
   * included), from /proc; null where /proc cannot be read.
   */
  threadShares: ThreadCpuSplit | null
  /** Every checked answer decrypted to the plaintext oracle's scores. */
  verified: boolean
}

/** The same queries run by he-core in the benchmark's own thread: no HTTP, no executor. */
export interface DirectThroughput {
  /** The whole server job per query (decode, load, compute, save), wall clock (ms). */
  total: Spread
  /** Mean CPU per query of the thread that ran it (ms): the server's job-thread figure. */
  cpuMs: number
  /**
   * CPU per query of the whole benchmark process (ms; the job's thread plus V8's helper
   * threads collecting its garbage), from /proc: the server's all-threads figure; null
   * where /proc cannot be read.
   */
  processCpuMs: number | null
  /** How `processCpuMs` split between the threads; null with it. */
  threadShares: ThreadCpuSplit | null
  /** One thread back to back: 1000 ÷ the median total. */
  qps: number
  /** 1000 ÷ `processCpuMs` (or `cpuMs` without /proc): queries per second per fully used core. */
  qpsPerCore: number
}

const finiteOr = (value: number, fallback: number) => (Number.isFinite(value) ? value : fallback)

/** What a load cell's samples and the server's CPU reading add up to (`serverCpuMs`: the whole measured part). */
export function summarizeThroughputCell(input: {
  samples: readonly RequestSample[]
  wallMs: number
  serverCpuMs: number | undefined
  workers: number
  cores: number
}): Pick<
  ThroughputCell,
  | 'requests'
  | 'errors'
  | 'qps'
  | 'qpsPerWorkerCore'
  | 'latencyP50'
  | 'latencyP99'
  | 'computeP50'
  | 'totalP50'
  | 'workerCpuMs'
  | 'serverCpuMs'
  | 'qpsPerCpuCore'
> {
  const answered = input.samples.filter((sample) => sample.status === 200)
  const sorted = (pick: (sample: RequestSample) => number | undefined) =>
    answered
      .map(pick)
      .filter((value): value is number => value !== undefined)
      .sort((a, b) => a - b)
  const latency = sorted((sample) => sample.latencyMs)
  const cpu = sorted((sample) => sample.phases.cpu)
  const qps = input.wallMs > 0 ? (answered.length * 1000) / input.wallMs : 0
  const serverCpuMs =
    input.serverCpuMs !== undefined && answered.length > 0 ? input.serverCpuMs / answered.length : null
  return {
    requests: answered.length,
    errors: input.samples.length - answered.length,
    qps,
    qpsPerWorkerCore: qps / Math.max(1, Math.min(input.workers, input.cores)),
    latencyP50: percentile(latency, 0.5),
    latencyP99: percentile(latency, 0.99),
    computeP50: percentile(
      sorted((sample) => sample.phases.compute),
      0.5,
    ),
    totalP50: percentile(
      sorted((sample) => sample.phases.total),
      0.5,
    ),
    workerCpuMs: cpu.length > 0 ? mean(cpu) : Number.NaN,
    serverCpuMs,
    qpsPerCpuCore: serverCpuMs !== null && serverCpuMs > 0 ? 1000 / serverCpuMs : null,
  }
}

/**
 * The direct figure from per-query wall times and thread CPU times (ms), and what the
 * whole process's threads spent over those queries (`process`: undefined without /proc).
 */
export function summarizeDirectThroughput(
  totals: readonly number[],
  cpus: readonly number[],
  process?: ThreadCpuSplit,
): DirectThroughput {
  const total = spread(totals)
  const cpuMs = cpus.length > 0 ? mean(cpus) : Number.NaN
  const processCpuMs = process && totals.length > 0 ? totalCpu(process) / totals.length : null
  return {
    total,
    cpuMs,
    processCpuMs,
    threadShares: (process && cpuShares(process)) ?? null,
    qps: finiteOr(1000 / total.median, 0),
    qpsPerCore: finiteOr(1000 / (processCpuMs ?? cpuMs), 0),
  }
}

import type { EvaluateCall } from '@sealbox/he-core/client'
import { z } from 'zod'
import type { StoppedBy } from './runLoadPhase.ts'

/*
 * What crosses between the orchestrator and its two child processes (the load
 * generator and the /healthz prober). Jobs are validated with zod on arrival;
 * results come back over Node's IPC channel (advanced serialization, so bytes stay bytes).
 */

const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value)
const Bytes = z.custom<Uint8Array>((value) => value instanceof Uint8Array, 'expected bytes')

/**
 * What a workload sends through `SealboxClient`, request i being the (i mod n)-th:
 * encrypted search queries (one query bundle per request) or evaluate calls. Made once,
 * client side, before any server starts; bytes cross to the load generator as bytes.
 */
export const WorkloadCallsSchema = z.discriminatedUnion('route', [
  z.object({ route: z.literal('search'), queries: z.array(Bytes).min(1), keySet: z.string().optional() }),
  z.object({
    route: z.literal('evaluate'),
    calls: z
      .array(
        z.object({
          params: z.custom<EvaluateCall['params']>(isObject),
          program: z.custom<EvaluateCall['program']>(isObject),
          inputs: z.record(z.string(), Bytes),
          keySet: z.string().optional(),
        }),
      )
      .min(1),
  }),
])
export type WorkloadCalls = z.infer<typeof WorkloadCallsSchema>

/** One load-generator run: warm-up, then the measured part, against one server. */
export const LoadJobSchema = z.object({
  baseUrl: z.url(),
  /**
   * The users the load comes from, by bearer token. Request i is sent by user i mod U, or
   * with `zipf` by a user drawn from a Zipf law (rank k is user k); user u sends call u mod N.
   */
  tokens: z.array(z.string().min(1)).min(1),
  calls: WorkloadCallsSchema,
  /** Who sends the next request: P(user k) ∝ 1 / (k + 1)^s, seeded (see `ZipfSampler`). */
  zipf: z.object({ s: z.number().nonnegative(), seed: z.number().int() }).optional(),
  concurrency: z.number().int().min(1).max(10_000),
  /** Unrecorded requests at the same concurrency before the measured part. */
  warmupRequests: z.number().int().nonnegative(),
  /** The measured part stops after this many requests… */
  requests: z.number().int().positive(),
  /** …or after this many seconds (in-flight requests finish), whichever comes first. */
  maxSeconds: z.number().positive(),
  /** A single request gives up after this long (counted as an error); absent: it waits. */
  requestTimeoutMs: z.number().int().positive().optional(),
  /** A request that gets no answer at all (the server is gone) fails the run instead of being recorded. */
  failWithoutAnswer: z.boolean().optional(),
  /** Read the server's `/metrics` before and after the measured part (event-loop delay, process CPU). */
  scrapeMetrics: z.boolean(),
  /** Return the first answer of these calls only (absent: of every call). */
  keepResponsesOf: z.array(z.number().int().nonnegative()).optional(),
})
export type LoadJob = z.infer<typeof LoadJobSchema>

/** One measured request. */
export interface RequestSample {
  /** Client wall time from send to the whole body read (ms). */
  latencyMs: number
  /** HTTP status; 0 when no answer came (network error, client timeout). */
  status: number
  /** `Server-Timing` phases (ms). */
  phases: Record<string, number>
  /** Send time, ms after the measured part began. */
  startMs: number
  /** The error code of a failed request. */
  code?: string
}

/** The server's event-loop delay over a window (ms), from prom-client's monitorEventLoopDelay gauges. */
export interface LoopDelayReading {
  p50: number
  p90: number
  p99: number
  max: number
  mean: number
}

export interface LoadResult {
  samples: RequestSample[]
  /** The measured part, in epoch ms (performance.timeOrigin based), for matching probes. */
  window: { startEpochMs: number; endEpochMs: number }
  wallMs: number
  stoppedBy: StoppedBy
  /** The first recorded answer envelope of each call index kept (to check it decrypts correctly). */
  firstResponses: Record<number, Uint8Array>
  /** Event-loop delay over the measured part as the server's histogram recorded it (resolution included). */
  loopDelay: LoopDelayReading | undefined
  /** CPU time of the whole server process (every thread) over the measured part, ms, from `/metrics`. */
  serverCpuMs?: number
}

/** The prober's job: probe `/healthz` at a fixed rate until told to stop. */
export const ProbeJobSchema = z.object({
  baseUrl: z.url(),
  /** Probes per second of each kind; the kinds alternate, evenly spaced. */
  hz: z.number().positive().max(1000),
  timeoutMs: z.number().int().positive(),
})
export type ProbeJob = z.infer<typeof ProbeJobSchema>

/** `fresh`: a new TCP connection per probe (like a kubelet); `keepAlive`: reused connections. */
export const PROBE_KINDS = ['fresh', 'keepAlive'] as const
export type ProbeKind = (typeof PROBE_KINDS)[number]

/** One `/healthz` probe. */
export interface ProbeSample {
  kind: ProbeKind
  /** When it was sent (epoch ms). */
  sentAtEpochMs: number
  /** How late the prober itself sent it relative to its schedule (ms): its own CPU starvation. */
  lateMs: number
  latencyMs: number
  ok: boolean
  error?: string
}

export interface ProbeResult {
  samples: ProbeSample[]
  /** The prober's scheduling priority (nice value) after asking for -5; 0 if that was refused. */
  priority: number
}

import type { LoopDelayReading } from './serverBenchProtocol.ts'

const LOOP_GAUGES = ['p50', 'p90', 'p99', 'max', 'mean'] as const

/** Reads prom-client's `*_eventloop_lag_{p50,…}_seconds` gauges (ms); undefined when absent. */
export function parseLoopDelay(metrics: string): LoopDelayReading | undefined {
  const reading: Partial<LoopDelayReading> = {}
  for (const gauge of LOOP_GAUGES) {
    const match = new RegExp(`^\\w*nodejs_eventloop_lag_${gauge}_seconds(?:\\{[^}]*\\})?\\s+(\\S+)`, 'm').exec(metrics)
    if (!match) return undefined
    reading[gauge] = Number(match[1]) * 1000
  }
  return reading as LoopDelayReading
}

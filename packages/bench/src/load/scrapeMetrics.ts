import type { SealboxClient } from '@sealbox/he-core/client'

/** One Prometheus sample: name, labels, value. */
export interface MetricSample {
  name: string
  labels: Record<string, string>
  value: number
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

/** Parses Prometheus text exposition (comments skipped). */
export function parsePrometheus(text: string): MetricSample[] {
  const samples: MetricSample[] = []
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue
    const match = LINE.exec(line)
    if (!match) continue
    const labels: Record<string, string> = {}
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) labels[key as string] = value as string
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) })
  }
  return samples
}

/** Reads a server's `/metrics`. */
export async function scrapeMetrics(server: SealboxClient): Promise<MetricSample[]> {
  return parsePrometheus(await server.metrics())
}

/** Sum of `name` samples whose labels include `match`. */
export function sumMetric(samples: readonly MetricSample[], name: string, match: Record<string, string> = {}): number {
  let total = 0
  for (const sample of samples) {
    if (sample.name !== name) continue
    if (Object.entries(match).every(([key, value]) => sample.labels[key] === value)) total += sample.value
  }
  return total
}

/** The server process's CPU seconds: prom-client's `process_cpu_seconds_total` (behind the server's metric prefix), user + system, every thread. */
export function processCpuSeconds(samples: readonly MetricSample[]): number | undefined {
  return samples.find((sample) => sample.name.endsWith('process_cpu_seconds_total'))?.value
}

import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { parseServerTiming, type TimingPhase } from '@sealbox/he-core/client'
import { percentile } from '@sealbox/he-core/testing'
import { expect } from 'vitest'
import { raw } from '../harness.ts'

/*
 * The abuse suite's shared tools. Each attack runs against a real server process
 * (a ServerNode, through ./abuseServer.ts) while a prober — in its own worker thread, so the
 * attack's own JavaScript cannot delay it — asks `/healthz` on a fresh connection
 * every few milliseconds, like a kubelet. A test asserts the attack's answer and that
 * the prober's p99 stayed under `healthzLimitMs` (the liveness bound, or a multiple of the idle
 * baseline on a busy machine), and records both in the abuse report
 * (node_modules/.abuse-report.jsonl): one row per attack with what it got and what the
 * server's other clients saw meanwhile, for people to read the measured figures from.
 */

/** What "stays fast for everyone else" means: a liveness probe with a one-second timeout never fires. */
export const HEALTHZ_P99_LIMIT_MS = 1000

/**
 * How many times the idle probe's p99, and its worst probe, (same test, same machine,
 * before the attack) an attack may cost. On a quiet machine both are far below
 * HEALTHZ_P99_LIMIT_MS; on one whose cores are all taken even an idle /healthz waits for
 * a core, sometimes for a second, and the bound follows that baseline instead of the
 * machine's speed. An attack that holds the event loop costs every probe, far beyond it.
 */
export const IDLE_P99_FACTOR = 20
export const IDLE_MAX_FACTOR = 4

/**
 * The p99 `/healthz` may reach during an attack: the liveness bound, or the idle baseline
 * (IDLE_P99_FACTOR × its p99, IDLE_MAX_FACTOR × its worst), or twice `loopBlockedMs` (work
 * the attack makes the event loop do by design, as measured in the same run), whichever
 * is largest.
 */
export function healthzLimitMs(idle: HealthStats, loopBlockedMs = 0): number {
  return Math.max(HEALTHZ_P99_LIMIT_MS, IDLE_P99_FACTOR * idle.p99, IDLE_MAX_FACTOR * idle.max, 2 * loopBlockedMs)
}

/** Latencies of `/healthz` over one window. */
export interface HealthStats {
  samples: number
  /** Probes that failed or took longer than the probe timeout. */
  failures: number
  p50: number
  p99: number
  max: number
}

/** A prober running in its own thread; `stop()` returns what it saw. */
export interface HealthProbe {
  stop(): Promise<HealthStats>
}

const PROBER = `
const { parentPort, workerData } = require('node:worker_threads')
const http = require('node:http')
const { url, intervalMs, timeoutMs, maxSamples } = workerData
const samples = []
let failures = 0
let stopped = false
function once() {
  return new Promise((resolve) => {
    const started = performance.now()
    const req = http.get(url + '/healthz', { agent: false, timeout: timeoutMs }, (res) => {
      res.resume()
      res.on('end', () => {
        if (res.statusCode !== 200) failures++
        samples.push(performance.now() - started)
        resolve()
      })
    })
    req.on('timeout', () => { req.destroy(new Error('timeout')) })
    req.on('error', () => { failures++; samples.push(performance.now() - started); resolve() })
  })
}
async function loop() {
  while (!stopped && samples.length < maxSamples) {
    const started = performance.now()
    await once()
    if (samples.length === 1) parentPort.postMessage({ first: true })
    // The probe's pace (like a kubelet's period), not an ordering.
    const wait = intervalMs - (performance.now() - started)
    if (wait > 0) await new Promise((r) => setTimeout(r, wait))
  }
  parentPort.postMessage({ samples, failures })
}
parentPort.once('message', () => { stopped = true })
loop()
`

function statsOf(samples: number[], failures: number): HealthStats {
  const sorted = [...samples].sort((a, b) => a - b)
  const round = (ms: number) => Math.round(ms * 10) / 10
  return {
    samples: sorted.length,
    failures,
    p50: round(percentile(sorted, 0.5)),
    p99: round(percentile(sorted, 0.99)),
    max: round(sorted.at(-1) ?? 0),
  }
}

/** A prober's thread: resolves `started` after its first sample, `result` when it stops. */
function startProber(url: string, options: { intervalMs?: number; timeoutMs?: number; maxSamples?: number }) {
  const worker = new Worker(PROBER, {
    eval: true,
    workerData: {
      url,
      intervalMs: options.intervalMs ?? 20,
      timeoutMs: options.timeoutMs ?? 10_000,
      maxSamples: options.maxSamples ?? Number.POSITIVE_INFINITY,
    },
  })
  let onStarted: () => void = () => {}
  const started = new Promise<void>((resolve) => {
    onStarted = resolve
  })
  const result = new Promise<HealthStats>((resolve, reject) => {
    worker.on('message', (message: { first?: true; samples?: number[]; failures?: number }) => {
      if (message.first) onStarted()
      else resolve(statsOf(message.samples ?? [], message.failures ?? 0))
    })
    worker.once('error', reject)
  })
  return { worker, started: Promise.race([started, result.then(() => undefined)]), result }
}

/** Starts probing `url`/healthz every `intervalMs` on a fresh connection each time. */
export function probeHealth(url: string, options: { intervalMs?: number; timeoutMs?: number } = {}): HealthProbe {
  const { worker, result } = startProber(url, options)
  return {
    async stop() {
      worker.postMessage('stop')
      const stats = await result
      await worker.terminate()
      return stats
    },
  }
}

const IDLE_SERVER = `
const server = require('node:http').createServer((req, res) => res.end('ok'))
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'))
process.stdin.on('end', () => process.exit(0))
process.stdin.resume()
`

/** A process that answers every request at once and does nothing else (`startIdleServer`). */
export interface IdleServer {
  url: string
  stop(): Promise<void>
}

/**
 * Starts a control for `/healthz`: a process that does no work, so its probe's latency
 * is what the host's scheduler alone costs a probe. Probed beside an attack (same time,
 * same machine), it says how much of the server's probe latency is the host's, not the
 * server's. It exits when its stdin closes (the test process ended) or on `stop()`.
 */
export async function startIdleServer(): Promise<IdleServer> {
  const child = spawn(process.execPath, ['-e', IDLE_SERVER], { stdio: ['pipe', 'pipe', 'inherit'] })
  let out = ''
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes('\n')) resolve(Number(out.trim()))
    })
    child.once('exit', (code) => reject(new Error(`the idle server exited with ${code}`)))
  })
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null) return
      const exited = once(child, 'exit')
      child.stdin.end()
      await exited
    },
  }
}

/** How many probes make the idle baseline beside an attack (at the probe's 20 ms pace, about a second). */
const IDLE_SAMPLES = 50

/** `/healthz` latencies of an idle server over `samples` probes, for the baseline beside an attack. */
export async function idleHealth(url: string, samples = IDLE_SAMPLES): Promise<HealthStats> {
  const { worker, result } = startProber(url, { maxSamples: samples })
  const stats = await result
  await worker.terminate()
  return stats
}

/** Runs `attack` while probing `/healthz`; returns its result and the probe's stats. */
export async function duringAttack<T>(
  url: string,
  attack: () => Promise<T>,
): Promise<{ result: T; health: HealthStats }> {
  const { worker, started, result: stats } = startProber(url, {})
  const stop = async () => {
    worker.postMessage('stop')
    const health = await stats
    await worker.terminate()
    return health
  }
  // The attack starts once the prober has its first sample.
  await started
  try {
    const result = await attack()
    return { result, health: await stop() }
  } catch (error) {
    await stop()
    throw error
  }
}

/** Resident set size of a process, from /proc (Linux). */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const match = /VmRSS:\s+(\d+) kB/.exec(status)
  if (!match) throw new Error(`no VmRSS for pid ${pid}`)
  return Number(match[1]) * 1024
}

/** A raw HTTP/1.1 request on its own connection (for bodies fetch will not send: dripped, oversized, lying). */
export function rawRequest(
  url: string,
  options: { method: string; path: string; headers?: Record<string, string | number>; body?: Uint8Array | string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(options.path, url)
    const req = httpRequest(target, { method: options.method, headers: options.headers ?? {}, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }),
      )
      res.on('error', reject)
    })
    req.on('error', reject)
    if (options.body !== undefined) req.write(options.body)
    req.end()
  })
}

const REPORT = join(dirname(fileURLToPath(import.meta.url)), '../../../../node_modules/.abuse-report.jsonl')

/** One row of the abuse report: the attack (a short name), the test, the answer seen, /healthz during vs idle. */
export interface AbuseRecord {
  attack: string
  test: string
  answer: string
  during: HealthStats
  idle: HealthStats
}

/** Appends a row to node_modules/.abuse-report.jsonl (read by people, never by a test). */
export function recordAbuse(record: AbuseRecord): void {
  mkdirSync(dirname(REPORT), { recursive: true })
  appendFileSync(REPORT, `${JSON.stringify({ at: new Date().toISOString(), ...record })}\n`)
}

/**
 * The suite's verdict on `/healthz` during an attack: no probe failed and p99 stayed under
 * `healthzLimitMs`. Then records the row, so only a passing attack reaches the report.
 * `loopBlockedMs` is work the attack makes the server do on its event loop by design (the
 * inline executor rebuilding its SEAL instance), as the server measured it in the same
 * run: a probe may wait that long, twice over, on a machine as slow as this one is now.
 */
export function expectHealthy(record: AbuseRecord, options: { loopBlockedMs?: number } = {}): void {
  expect(record.during.failures).toBe(0)
  expect(record.during.p99).toBeLessThan(healthzLimitMs(record.idle, options.loopBlockedMs))
  recordAbuse(record)
}

/** The `Server-Timing` phases during which an inline job holds the event loop. */
const LOOP_HELD_PHASES = [
  'keydeserialize',
  'deserialize',
  'compute',
  'serialize',
] as const satisfies readonly TimingPhase[]

/**
 * The longest time one answered job held its thread, from the `Server-Timing` headers
 * of `answers` (0 when none was answered). For `inline` answers that thread is the event
 * loop: the measured, same-run unit against which a probe's worst delay is judged.
 */
export function longestJobMs(headers: readonly (string | null | undefined)[]): number {
  let longest = 0
  for (const header of headers) {
    const phases = parseServerTiming(header)
    longest = Math.max(
      longest,
      LOOP_HELD_PHASES.reduce((sum, phase) => sum + (phases[phase] ?? 0), 0),
    )
  }
  return longest
}

/** A server's Prometheus text (`GET /metrics`). */
export async function metricsText(url: string): Promise<string> {
  return (await fetch(`${url}/metrics`)).text()
}

/**
 * The server's own longest event-loop delay since this was last asked, ms
 * (`sealbox_nodejs_eventloop_lag_max_seconds`: the histogram restarts at every scrape). Unlike
 * a probe's latency it does not include the probe's own wait for a core on a busy machine.
 */
export async function loopDelayMaxMs(url: string): Promise<number> {
  return Math.round(metricSum(await metricsText(url), 'sealbox_nodejs_eventloop_lag_max_seconds') * 1000)
}

/** Sum of a Prometheus metric's samples (all label sets). */
export function metricSum(text: string, name: string): number {
  let sum = 0
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) sum += Number(line.slice(line.lastIndexOf(' ') + 1))
  }
  return sum
}

/** `PUT /api/v1/keysets/{id}` of raw bytes as `token`: the answer as data, never a throw. */
export function putKeySetRaw(url: string, token: string, id: string, body: Uint8Array) {
  return raw(`${url}/api/v1/keysets/${id}`, {
    method: 'PUT',
    token,
    headers: { 'content-type': 'application/octet-stream' },
    body,
  })
}

/** `POST /api/v1/search?keySet=…` of an encrypted query as `token` (extra `headers`, e.g. an executor). */
export function searchRaw(
  url: string,
  token: string,
  keySet: string,
  query: Uint8Array,
  headers: Record<string, string> = {},
) {
  return raw(`${url}/api/v1/search?keySet=${keySet}`, {
    method: 'POST',
    token,
    headers: { 'content-type': 'application/octet-stream', ...headers },
    body: query,
  })
}

/** `POST /api/v1/evaluate` of an evaluate `body` (`encodeEvaluateRequest`) as `token` (extra `headers`, e.g. an executor). */
export function evaluateRaw(url: string, token: string, body: Uint8Array, headers: Record<string, string> = {}) {
  return raw(`${url}/api/v1/evaluate`, {
    method: 'POST',
    token,
    headers: { 'content-type': 'application/octet-stream', ...headers },
    body,
  })
}

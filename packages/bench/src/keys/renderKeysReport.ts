import { escapeHtml, htmlList, htmlPage, htmlTable } from '../core/htmlPage.ts'
import type { MachineInfo } from '../core/machineInfo.ts'
import { type MarkdownColumn, markdownTable } from '../core/markdownTable.ts'
import { medianOfFinite } from '../core/stats.ts'
import { svgBarChart } from '../core/svgBarChart.ts'
import type { KeysBenchSettings } from './keysBenchSettings.ts'
import type { BenchFacts, ScenarioResult, UsersRow } from './keysScenario.ts'
import { KEY_PHASES, type KeyPhase } from './summarizeLoad.ts'

/** Everything the keys benchmark measured, as written to keys-benchmark.json. */
export interface KeysBenchReport {
  generatedAt: string
  machine: MachineInfo
  loadAverage: [number, number, number]
  settings: KeysBenchSettings
  facts: Omit<BenchFacts, 'config' | 'tokensFile' | 'keyBytesSource'> & {
    keyBytesSource?: BenchFacts['keyBytesSource']
    configId: string
    polyModulusDegree: number
    galoisSteps: number[]
    rows: number
    dimension: number
  }
  scenarios: ScenarioResult[]
}

const pct = (x: number) => `${(100 * x).toFixed(0)}%`
const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '–')
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(2)} MiB`

/**
 * Share of the worker's time per request spent getting keys (store fetch + key
 * deserialization) — from the same requests, so the shared machine's load cancels out;
 * 1 − share bounds the throughput keys can cost.
 */
function keyShare(phases: Record<KeyPhase, number>): number {
  const keys = phases.keyload + phases.keydeserialize
  const work = keys + phases.deserialize + phases.compute + phases.serialize
  return work > 0 ? keys / work : 0
}

/** Mean ms of a request's worker phases (keys, queries, compute, responses): its server time. */
function serverMs(phases: Partial<Record<string, number>>): number {
  return (['keyload', 'keydeserialize', 'deserialize', 'compute', 'serialize'] as const).reduce(
    (sum, phase) => sum + (phases[phase] ?? 0),
    0,
  )
}

/**
 * A worker miss served by the node's bytes cache (its `keydeserialize`) ÷ the all-hot
 * baseline's server time per request (same population's rounds, seconds apart).
 */
function missShare(r: UsersRow): number {
  return r.load.missMs === undefined ? Number.NaN : r.load.missMs.bytes / serverMs(r.hot.phases)
}

function label(s: ScenarioResult): string {
  return `${s.store} / ${s.scheduler}${s.storeKernelForms === false ? ' / no stored kernel forms' : ''}`
}

interface Table {
  columns: MarkdownColumn[]
  rows: string[][]
}

/**
 * The scenario's population whose keys all stay in the worker caches (≥ 99% worker hits,
 * the smallest U): an all-keys-hot baseline with the same kind of traffic as the others.
 */
function allCachedRow(s: ScenarioResult): UsersRow | undefined {
  const row = [...s.rows].sort((a, b) => a.users - b.users)[0]
  return row && row.load.tiers.worker >= 0.99 && row.load.cpuMs > 0 ? row : undefined
}

/** Worker CPU per request of the all-cached population ÷ this row's (1 = keys cost nothing). */
function vsAllCached(s: ScenarioResult, r: UsersRow): number | undefined {
  const base = allCachedRow(s)
  return base && r.load.cpuMs > 0 ? base.load.cpuMs / r.load.cpuMs : undefined
}

function throughputTable(report: KeysBenchReport): Table {
  const columns: MarkdownColumn[] = [
    { heading: 'store / scheduling' },
    { heading: 'users' },
    { heading: 'keys ÷ worker caches', align: 'right' },
    { heading: 'req/s', align: 'right' },
    { heading: 'all-hot req/s', align: 'right' },
    { heading: 'normalised (median round)', align: 'right' },
    { heading: 'per-round ratios', align: 'right' },
    { heading: 'CPU-normalised', align: 'right' },
    { heading: 'vs all-cached population (CPU)', align: 'right' },
    { heading: 'worker time on keys', align: 'right' },
    { heading: 'worker hits', align: 'right' },
    { heading: 'bytes-cache hits', align: 'right' },
    { heading: 'store reads', align: 'right' },
    { heading: 'miss from bytes ms', align: 'right' },
    { heading: 'miss from store ms', align: 'right' },
    { heading: 'bytes miss ÷ hot server time', align: 'right' },
    { heading: 'p50 ms', align: 'right' },
    { heading: 'p95 ms', align: 'right' },
    { heading: 'errors', align: 'right' },
  ]
  const rows = report.scenarios.flatMap((s) =>
    s.rows.map((r) => [
      label(s),
      String(r.users),
      `${r.keysOverCache.toFixed(1)}×`,
      r.load.throughput.toFixed(1),
      r.hot.throughput.toFixed(1),
      pct(r.normalized),
      (r.roundRatios ?? []).map((x) => pct(x)).join(' '),
      r.cpuNormalized === undefined ? '–' : pct(r.cpuNormalized),
      ((x) => (x === undefined ? '–' : pct(x)))(vsAllCached(s, r)),
      pct(keyShare(r.load.phases)),
      pct(r.load.tiers.worker),
      pct(r.load.tiers.bytes),
      pct(r.load.tiers.store),
      ms(r.load.missMs?.bytes ?? Number.NaN),
      ms(r.load.missMs?.store ?? Number.NaN),
      ((x) => (Number.isFinite(x) ? pct(x) : '–'))(missShare(r)),
      ms(r.load.latency.p50),
      ms(r.load.latency.p95),
      String(r.load.errors),
    ]),
  )
  return { columns, rows }
}

function phaseTable(report: KeysBenchReport): Table {
  const columns: MarkdownColumn[] = [
    { heading: 'store / scheduling' },
    { heading: 'users' },
    ...KEY_PHASES.map((phase) => ({ heading: `${phase} ms`, align: 'right' as const })),
  ]
  const rows = report.scenarios.flatMap((s) =>
    s.rows.flatMap((r) => [
      [label(s), `${r.users}`, ...KEY_PHASES.map((phase) => ms(r.load.phases[phase]))],
      [label(s), `${r.users} (all-hot)`, ...KEY_PHASES.map((phase) => ms(r.hot.phases[phase]))],
    ]),
  )
  return { columns, rows }
}

function coldTable(report: KeysBenchReport): Table {
  const columns: MarkdownColumn[] = [
    { heading: 'store / scheduling' },
    { heading: 'samples', align: 'right' },
    { heading: 'upload ms', align: 'right' },
    { heading: 'first query ms', align: 'right' },
    { heading: 'next query ms', align: 'right' },
    { heading: 'first ÷ next', align: 'right' },
    { heading: 'first ÷ next, worker CPU', align: 'right' },
    { heading: 'first ÷ next, server time', align: 'right' },
    { heading: 'first: key fetch + deserialize ms', align: 'right' },
  ]
  const rows = report.scenarios.map((s) => {
    const cold = medianOfFinite(s.cold.map((c) => c.coldMs))
    const hot = medianOfFinite(s.cold.map((c) => c.hotMs))
    const load = medianOfFinite(s.cold.map((c) => (c.coldPhases.keyload ?? 0) + (c.coldPhases.keydeserialize ?? 0)))
    return [
      label(s),
      String(s.cold.length),
      ms(medianOfFinite(s.cold.map((c) => c.uploadMs))),
      ms(cold),
      ms(hot),
      `${(cold / hot).toFixed(2)}×`,
      `${coldCpuRatio(s).toFixed(2)}×`,
      `${coldServerRatio(s).toFixed(2)}×`,
      ms(load),
    ]
  })
  return { columns, rows }
}

/** Median worker-thread CPU (Server-Timing `cpu`) of first queries ÷ that of the next ones. */
function coldCpuRatio(s: ScenarioResult): number {
  return (
    medianOfFinite(s.cold.map((c) => c.coldPhases.cpu ?? Number.NaN)) /
    medianOfFinite(s.cold.map((c) => c.hotPhases.cpu ?? Number.NaN))
  )
}

/** Median server time (worker phases) of first queries ÷ that of the next ones. */
function coldServerRatio(s: ScenarioResult): number {
  return (
    medianOfFinite(s.cold.map((c) => serverMs(c.coldPhases))) / medianOfFinite(s.cold.map((c) => serverMs(c.hotPhases)))
  )
}

/**
 * The headline checks against the key tiers' design targets: with affinity, when users'
 * keys outnumber the worker caches, throughput stays at least 80 % of the all-hot
 * baseline; a key set's first query after upload takes at most 2× the next one.
 */
function targets(report: KeysBenchReport): string[] {
  const lines: string[] = []
  for (const s of report.scenarios) {
    const near = [...s.rows].sort(
      (a, b) =>
        Math.abs(a.keysOverCache - report.settings.pressure) - Math.abs(b.keysOverCache - report.settings.pressure),
    )[0]
    if (near) {
      lines.push(
        `${label(s)}: at ${near.keysOverCache.toFixed(1)}× more users' keys than the worker caches hold (U=${near.users}), throughput per worker CPU is **${((x) => (x === undefined ? '–' : pct(x)))(vsAllCached(s, near))}** of the all-cached population (U=${allCachedRow(s)?.users ?? '–'}, every key in the worker caches) and ${near.cpuNormalized === undefined ? '–' : pct(near.cpuNormalized)} of the one-user all-hot baseline (wall-clock: ${pct(near.normalized)}; medians of rounds; target ≥ 80% with affinity); keys took **${pct(keyShare(near.load.phases))}** of worker time (so ≥ ${pct(1 - keyShare(near.load.phases))} of all-hot capacity, from the phase split of the same requests); keys found in the worker ${pct(near.load.tiers.worker)}, node bytes cache ${pct(near.load.tiers.bytes)}, store ${pct(near.load.tiers.store)}.`,
      )
    }
    for (const r of s.rows) {
      if (r.load.missMs === undefined || !Number.isFinite(r.load.missMs.bytes)) continue
      lines.push(
        `${label(s)}, U=${r.users} (${r.keysOverCache.toFixed(1)}×): a worker miss served from the node's bytes cache costs **${ms(r.load.missMs.bytes)} ms**, ${pct(missShare(r))} of a hot query's server time (${ms(serverMs(r.hot.phases))} ms; target ≤ 10%); one from the store ${ms(r.load.missMs.store)} ms; throughput per worker CPU ${((x) => (x === undefined ? '–' : pct(x)))(vsAllCached(s, r))} of the all-cached population (targets ≥ 95% at 4×, ≥ 85% at 40×).`,
      )
    }
    const cold = medianOfFinite(s.cold.map((c) => c.coldMs))
    const hot = medianOfFinite(s.cold.map((c) => c.hotMs))
    if (s.cold.length > 0) {
      lines.push(
        `${label(s)}: a key set's first query after upload takes **${coldCpuRatio(s).toFixed(2)}×** the next one's worker CPU (Server-Timing \`cpu\`; target ≤ 1.2×) and ${coldServerRatio(s).toFixed(2)}× its wall-clock server time (worker phases, which other processes' load inflates); ${(cold / hot).toFixed(2)}× wall-clock at the client (${ms(cold)} vs ${ms(hot)} ms).`,
      )
    }
  }
  return lines
}

function setupLines(report: KeysBenchReport): string[] {
  const { facts, settings, machine } = report
  return [
    `Machine: ${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node}; load average at the end ${report.loadAverage.join(' / ')} (a shared machine: see the note on throughput below).`,
    `Search: n=${facts.polyModulusDegree}, V=${facts.rows}, D=${facts.dimension}, server-side baby steps, Galois steps ${facts.galoisSteps.join(', ')} (config ${facts.configId}).`,
    `Per user: upload ${mib(facts.uploadBytes)} (seeded, zstd); in the server's caches ${facts.keyHeapBytes.toLocaleString('en-US')} bytes (${facts.keyBytesSource === 'server' ? "measured: the node's bytes cache after one upload — the kernel form a worker holds too" : "SEAL's deserialized keys, estimated"}). Per-worker key cache ${mib(facts.keyCacheBytes)} (${(facts.keyCacheBytes / facts.keyHeapBytes).toFixed(1)} users) × ${settings.workers} workers.`,
    `Users: ${Math.min(settings.distinctKeys ?? Number.POSITIVE_INFINITY, Math.max(...settings.users) + settings.coldSamples).toLocaleString('en-US')} distinct key sets generated; user i uploads key set i mod ${settings.distinctKeys ?? '∞'} (and sends its query) under its own tenant. Every server cache keys on tenant and content hash, so re-labelled key sets are separate entries, loaded, cached and evicted like distinct ones.`,
    "Throughput on a shared machine: wall-clock req/s swing ±50% between runs seconds apart (other processes take the cores). Columns: the wall-clock ratio to a one-user all-hot baseline run alternately (median of rounds); the same with worker-thread CPU per request (Server-Timing `cpu`); worker CPU per request of the all-cached population (the smallest U, ≥ 99% worker hits: all keys hot, same traffic shape) ÷ this row's; the share of worker time spent fetching and deserializing keys. The one-user baseline flatters 'hot': one key set also stays in the CPU caches.",
    `Load: Zipf s=${settings.zipfS} over users, ${settings.concurrency} requests in flight from a separate load-generator process; per population ${settings.rounds} rounds of (all-hot baseline, measured run), ${settings.requests} measured requests in all after ${settings.warmupRequests} warm-up requests; each run ≤ ${settings.maxSeconds} s.${settings.warmSweep ? ' Before its rounds, every user of the population sent one query, least popular first (the steady state of a node that has served them: its LRU tiers keep the most popular users, not the last uploads).' : ''} Normalised = median over rounds of measured ÷ all-hot throughput (runs seconds apart, so the shared machine's drifting load cancels).`,
    `Node bytes cache (middle key tier): ${settings.bytesTier === false ? 'off (KEY_BYTES_CACHE_BYTES=0)' : 'on, 256 MiB'}.`,
    `Kernel forms in the key store (KEY_STORE_KERNEL_FORMS): ${(settings.storeKernelForms ?? [true]).map((on) => (on ? 'on' : 'off')).join(', ')}; "no stored kernel forms" rows read SEAL's bytes on every store-tier miss.`,
    `Server reports: ${report.scenarios.map((s) => `${label(s)} → store "${s.serverStore}", scheduling "${s.serverScheduler}"`).join('; ')}.`,
    `Answers checked against the plaintext oracle: ${report.scenarios.reduce((n, s) => n + s.verified.exact, 0)} exact of ${report.scenarios.reduce((n, s) => n + s.verified.checked, 0)}.`,
  ]
}

export function renderKeysMarkdown(report: KeysBenchReport): string {
  const t = throughputTable(report)
  const p = phaseTable(report)
  const c = coldTable(report)
  return [
    '# Evaluation keys at scale (`npm run benchmark:keys`)',
    '',
    `Generated ${report.generatedAt}.`,
    '',
    '## Targets',
    '',
    ...targets(report).map((line) => `- ${line}`),
    '',
    '## Setup',
    '',
    ...setupLines(report).map((line) => `- ${line}`),
    '',
    '## Throughput, normalised to all keys hot, and where keys came from',
    '',
    markdownTable(t.columns, t.rows),
    '',
    '## Time per request by phase (mean ms; deserialize = queries; transfer = client time not spent in the server)',
    '',
    markdownTable(p.columns, p.rows),
    '',
    '## Upload → first query (cold key) vs the next query',
    '',
    markdownTable(c.columns, c.rows),
    '',
  ].join('\n')
}

export function renderKeysHtml(report: KeysBenchReport): string {
  const t = throughputTable(report)
  const p = phaseTable(report)
  const c = coldTable(report)
  const categories = report.settings.users.map((u) => `${u} users`)
  const colors = ['#2b6cb0', '#c05621', '#2f855a', '#6b46c1']
  const chart = svgBarChart({
    title: 'Throughput per worker CPU, normalised to the all-cached population',
    categories,
    series: report.scenarios.map((s, i) => ({
      name: label(s),
      color: colors[i % colors.length] as string,
      values: report.settings.users.map((u) => {
        const row = s.rows.find((r) => r.users === u)
        return row ? (vsAllCached(s, row) ?? row.normalized) : undefined
      }),
    })),
    scale: 'linear',
    axisLabel: 'fraction of all-keys-cached throughput',
    format: (value) => `${(100 * value).toFixed(0)}%`,
    reference: { value: 0.8, label: '80% target' },
  })
  const table = (x: Table) => htmlTable(x.columns, x.rows)
  return htmlPage(
    'sealbox — evaluation keys at scale',
    [
      '<h1>Evaluation keys at scale</h1>',
      `<p class="note">Generated ${escapeHtml(report.generatedAt)}.</p>`,
      '<h2>Targets</h2>',
      htmlList(targets(report)),
      `<figure>${chart}</figure>`,
      '<h2>Setup</h2>',
      htmlList(setupLines(report)),
      '<h2>Throughput and key tiers</h2>',
      table(t),
      '<h2>Time per request by phase (mean ms)</h2>',
      table(p),
      '<h2>Upload → first query vs next</h2>',
      table(c),
    ].join('\n'),
  )
}

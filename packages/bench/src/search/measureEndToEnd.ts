import { join } from 'node:path'
import { getHeContext, HeError } from '@sealbox/he-core'
import { SealboxClient, TIMING_PHASES } from '@sealbox/he-core/client'
import {
  PrivateSearchClient,
  plaintextSearchScores,
  resolveSearchConfig,
  resolveSearchLink,
  type SearchConfig,
  type SearchLinkName,
  type SearchLinkRates,
  syntheticSearchDatabase,
  syntheticSearchQuery,
  topKIndices,
  transferMs,
} from '@sealbox/he-core/search'
import { ServerNode } from '@sealbox/testkit'
import { BenchError } from '../BenchError.ts'
import { loadAverage } from '../core/machineInfo.ts'
import { median } from '../core/stats.ts'
import type { NativeSearchHarness } from '../engines/native/NativeSearchHarness.ts'
import { BENCH_SERVER_ENV } from '../load/benchServerEnv.ts'
import { parsePrometheus, processCpuSeconds } from '../load/scrapeMetrics.ts'
import type { BrowserClientSample } from './browserClient/browserClientProtocol.ts'
import type { BrowserSearchClient } from './browserSearchClient.ts'
import type { EndToEndCase, EndToEndLimit } from './endToEndCases.ts'
import { type EndToEndTwinRow, measureEndToEndTwin, renderEndToEndTwins } from './measureEndToEndTwins.ts'
import { ensureToxiproxy, ToxiproxyLinks } from './toxiproxyLink.ts'

/** Medians of one config over one link (ms), its bytes and whether every query found the true top hit. */
export interface EndToEndRow {
  title: string
  link: SearchLinkRates
  /** `toxiproxy`: measured through a shaped link; `model`: loopback plus bytes ÷ rate and one round trip. */
  shapedBy: 'toxiproxy' | 'model'
  /** Who encrypts and decrypts: `Node` (node-seal in the benchmark's process) or `Chromium <version>` (the page). */
  client: string
  config: {
    babySteps: string
    babyStep: number
    queryCiphertexts: number
    galoisSteps: number[]
    wire: string
    /** n and the coefficient modulus's prime sizes the server served (its profile for this D). */
    polyModulusDegree: number
    coeffModulusBits: number[]
  }
  samples: number
  encryptMs: number
  /** Bytes ÷ the link's rate (what the shaper enforces). */
  uploadMs: number
  serverMs: number
  downloadMs: number
  /** The whole request as the client saw it, minus the server's total: upload, download and the round trip, measured. */
  networkMs: number
  decryptRankMs: number
  /** encrypt + the request + decrypt and rank: the headline. */
  endToEndMs: number
  endToEndMinMs: number
  /** The server process's CPU (all threads) per query, from its /metrics. */
  serverCpuMs: number | null
  queryBytes: number
  responseBytes: number
  keyBytes: number
  topHitFound: boolean
  /** Every row's decrypted score equal to the plaintext oracle's, in every sample (checked outside the timing). */
  exact: boolean
  /** Samples whose response had a block with no noise budget left (the client refuses to rank it). */
  noiseExhausted: number
  /** The cost model's end-to-end estimate for this config and link. */
  modelMs: number | undefined
}

export interface EndToEndReport {
  command: string
  date: string
  shaper: string
  loadAverageBefore: [number, number, number]
  loadAverageAfter: [number, number, number]
  rows: EndToEndRow[]
  /** The server side of each default config in WebAssembly and native SEAL, same run. */
  twins: EndToEndTwinRow[]
  /** Cases not measured, and why. */
  skipped: { title: string; reason: string }[]
  /** Shapes left out as limits of the server's defaults, and why. */
  limits: EndToEndLimit[]
}

async function serverCpuSeconds(url: string): Promise<number | null> {
  return processCpuSeconds(parsePrometheus(await (await fetch(`${url}/metrics`)).text())) ?? null
}

/**
 * The server's own time on the request: its wall-clock phases, from decoding the body to
 * encoding the answer. Not Server-Timing's `total`, which starts with the first byte and so
 * holds the upload over a slow link.
 */
const SERVER_PHASES = TIMING_PHASES.filter((phase) => phase !== 'store' && phase !== 'cpu')

function serverTotal(timing: Partial<Record<string, number>>): number {
  return SERVER_PHASES.reduce((sum, phase) => sum + (timing[phase] ?? 0), 0)
}

async function measureOverLink(
  node: ServerNode,
  baseUrl: string,
  link: SearchLinkRates,
  shapedBy: EndToEndRow['shapedBy'],
  c: EndToEndCase,
  samples: number,
): Promise<EndToEndRow> {
  const anonymous = new SealboxClient({ baseUrl })
  const { client } = await anonymous.createSession()
  const { database: _facts, fingerprint: _fingerprint, ...served } = await client.searchConfig()
  if (Object.keys(c.env).length === 0) {
    // A default row is he-core's default for this shape (its parameters follow D), or it is not that row.
    const expected = resolveSearchConfig({ rows: c.rows, dimension: c.dimension })
    if (served.configId !== expected.configId) {
      throw new BenchError(
        'ENGINE_FAILED',
        `${c.title}: the server serves config ${served.configId} (n=${served.polyModulusDegree} [${served.params.coeffModulusBits.join(', ')}], ${served.babySteps} g=${served.babyStep}), not resolveSearchConfig's default ${expected.configId} ([${expected.params.coeffModulusBits.join(', ')}], ${expected.babySteps} g=${expected.babyStep})`,
      )
    }
  }
  const config: SearchConfig = c.queryEncoding ? { ...served, compression: c.queryEncoding } : served
  const ctx = await getHeContext(config.params)
  using search = PrivateSearchClient.create(ctx, config)
  const keys = search.evaluationKeys(c.keyEncoding ? { compression: c.keyEncoding } : {})
  if (keys) await client.putKeySet('e2e', keys)
  const options = keys ? { keySet: 'e2e' } : {}
  const database = syntheticSearchDatabase({ rows: c.rows, dimension: c.dimension, seed: 1 })
  const rows: BrowserClientSample[] = []
  let topHitFound = true
  let exact = true
  let noiseExhausted = 0
  // One untimed query warms the server's key cache and the connection.
  await client.search(search.encryptQuery(syntheticSearchQuery(c.dimension, 999)), options)
  const cpuBefore = await serverCpuSeconds(`http://127.0.0.1:${node.port}`)
  for (let i = 0; i < samples; i++) {
    const vector = syntheticSearchQuery(c.dimension, i + 1)
    const t0 = performance.now()
    const query = search.encryptQuery(vector)
    const t1 = performance.now()
    const result = await client.search(query, options)
    const t2 = performance.now()
    const hits = rankOrNoise(search, result.responses)
    const t3 = performance.now()
    const scores = plaintextSearchScores(config, database, vector)
    if (!hits) noiseExhausted++
    if (hits?.[0]?.row !== topKIndices(scores, 1)[0]) topHitFound = false
    if (!hits || !matchesOracle(search.decryptScores(result.responses), scores)) exact = false
    const responseBytes = result.responses.reduce((sum, r) => sum + r.byteLength, 0)
    rows.push({
      encrypt: t1 - t0,
      request: t2 - t1,
      server: serverTotal(result.timing),
      decrypt: t3 - t2,
      up: query.byteLength,
      down: responseBytes,
    })
  }
  const cpuAfter = await serverCpuSeconds(`http://127.0.0.1:${node.port}`)
  return summarise({
    title: c.title,
    link,
    shapedBy,
    config,
    rows,
    cpuMs: cpuBefore !== null && cpuAfter !== null ? ((cpuAfter - cpuBefore) * 1000) / samples : null,
    keyBytes: keys?.byteLength ?? 0,
    topHitFound,
    exact,
    noiseExhausted,
    modelled: !c.queryEncoding,
  })
}

/**
 * The client's ranking, or null when a response block has no noise budget left (the client
 * refuses it: NOISE_BUDGET_EXHAUSTED), which the row counts instead of stopping the run.
 */
function rankOrNoise(search: PrivateSearchClient, responses: readonly Uint8Array[]) {
  try {
    return search.rank(responses, 10).hits
  } catch (error) {
    if (error instanceof HeError && error.code === 'NOISE_BUDGET_EXHAUSTED') return null
    throw error
  }
}

/** Medians of one config's timed queries over one link (the Node client's or the browser's). */
function summarise(run: {
  title: string
  link: SearchLinkRates
  shapedBy: EndToEndRow['shapedBy']
  config: SearchConfig
  rows: readonly BrowserClientSample[]
  cpuMs: number | null
  keyBytes: number
  topHitFound: boolean
  exact: boolean
  noiseExhausted: number
  /** The config is the served one, so the cost model's estimate applies. */
  modelled: boolean
  client?: string
}): EndToEndRow {
  const { link, rows, config } = run
  const model = run.shapedBy === 'model' ? link : undefined
  const e2e = rows.map(
    (r) =>
      r.encrypt +
      r.request +
      r.decrypt +
      (model ? transferMs(r.up, model.upMbps) + transferMs(r.down, model.downMbps) + model.rttMs : 0),
  )
  const queryBytes = rows[0]?.up ?? 0
  const responseBytes = rows[0]?.down ?? 0
  const estimate = config.estimate
  return {
    title: run.title,
    link,
    shapedBy: run.shapedBy,
    client: run.client ?? 'Node',
    config: {
      babySteps: config.babySteps,
      babyStep: config.babyStep,
      queryCiphertexts: config.queryCiphertexts,
      galoisSteps: config.galoisSteps,
      wire: `${config.compression} / ${config.responseCompression}`,
      polyModulusDegree: config.polyModulusDegree,
      coeffModulusBits: config.params.coeffModulusBits,
    },
    samples: rows.length,
    encryptMs: median(rows.map((r) => r.encrypt)),
    uploadMs: transferMs(queryBytes, link.upMbps),
    serverMs: median(rows.map((r) => r.server)),
    downloadMs: transferMs(responseBytes, link.downMbps),
    networkMs: median(rows.map((r) => r.request - r.server)),
    decryptRankMs: median(rows.map((r) => r.decrypt)),
    endToEndMs: median(e2e),
    endToEndMinMs: Math.min(...e2e),
    serverCpuMs: run.cpuMs,
    queryBytes,
    responseBytes,
    keyBytes: run.keyBytes,
    topHitFound: run.topHitFound,
    exact: run.exact,
    noiseExhausted: run.noiseExhausted,
    modelMs: estimate && estimate.link.name === link.name && run.modelled ? estimate.totalMs : undefined,
  }
}

/**
 * The same config and link with the client in Chromium (browserClient/): he-core in a page,
 * the server reached through the shaped link from another origin (CORS; the preflight is
 * cached after the untimed first query).
 */
async function measureInChromium(
  browser: BrowserSearchClient,
  node: ServerNode,
  baseUrl: string,
  link: SearchLinkRates,
  shapedBy: EndToEndRow['shapedBy'],
  c: EndToEndCase,
  samples: number,
): Promise<EndToEndRow> {
  let cpuBefore: number | null = null
  const { setup, run } = await browser.run(baseUrl, samples, async () => {
    cpuBefore = await serverCpuSeconds(`http://127.0.0.1:${node.port}`)
  })
  const cpuAfter = await serverCpuSeconds(`http://127.0.0.1:${node.port}`)
  const anonymous = new SealboxClient({ baseUrl: node.url })
  const { client } = await anonymous.createSession()
  const { database: _facts, fingerprint: _fingerprint, ...config } = await client.searchConfig()
  const before = cpuBefore as number | null
  return summarise({
    title: c.title,
    link,
    shapedBy,
    config,
    rows: run.samples,
    cpuMs: before !== null && cpuAfter !== null ? ((cpuAfter - before) * 1000) / samples : null,
    keyBytes: setup.keyBytes,
    topHitFound: run.topHitFound,
    exact: run.exact,
    noiseExhausted: run.noiseExhausted,
    modelled: true,
    client: `Chromium ${browser.version}`,
  })
}

/**
 * The end-to-end section: for each case a real server process (pool executor), and for
 * each link a Toxiproxy proxy in front of it shaped to that link; a Node client encrypts,
 * sends, waits, decrypts and ranks, as a user would. Without Toxiproxy (no Go), the same
 * client runs over loopback and the link is added by the model, and the rows say so.
 */
export async function measureEndToEnd(options: {
  cases: readonly EndToEndCase[]
  /** Shapes left out as limits (named in the report). */
  limits?: readonly EndToEndLimit[]
  links: readonly SearchLinkName[]
  samples: number
  cacheDir: string
  command: string
  log: (line: string) => void
  /** Measure each default config's server side in this process beside its native twin (undefined harness: WASM only). */
  twins?: { harness: NativeSearchHarness | undefined; samples: number }
  /** The Chromium client, run after the Node client on the cases it accepts. */
  browser?: { client: BrowserSearchClient; cases: (c: EndToEndCase) => boolean }
}): Promise<EndToEndReport> {
  const { log } = options
  const loadAverageBefore = loadAverage()
  let links: ToxiproxyLinks | undefined
  let shaper = 'model: loopback + bytes ÷ rate + one round trip (Toxiproxy could not be built or started)'
  try {
    links = await ToxiproxyLinks.start(await ensureToxiproxy(options.cacheDir, log))
    shaper = 'Toxiproxy 2.12.0 (latency toxic: half the round trip each way; bandwidth toxic per direction)'
  } catch (error) {
    log(`Toxiproxy unavailable (${error instanceof Error ? error.message : String(error)}): modelled rows`)
  }
  const rows: EndToEndRow[] = []
  const twins: EndToEndTwinRow[] = []
  const skipped: { title: string; reason: string }[] = []
  try {
    for (const [i, c] of options.cases.entries()) {
      log(`end to end: ${c.title}`)
      let node: ServerNode
      try {
        node = await ServerNode.start({
          name: `e2e-${i}`,
          env: {
            ...BENCH_SERVER_ENV,
            EXECUTOR: 'pool',
            WORKERS: '1',
            SYNTHETIC_ROWS: String(c.rows),
            SYNTHETIC_DIM: String(c.dimension),
            SYNTHETIC_SEED: '1',
            ...(options.browser ? { CORS_ORIGINS: options.browser.client.origin } : {}),
            ...c.env,
          },
          readyTimeoutMs: 300_000,
        })
      } catch (error) {
        // One shape the machine cannot serve (a server not ready in time) is noted, not the end of the run.
        const reason = error instanceof Error ? error.message : String(error)
        log(`${c.title} not measured: ${reason}`)
        skipped.push({ title: c.title, reason })
        continue
      }
      try {
        for (const name of options.links) {
          const link = resolveSearchLink(name)
          const url = links ? await links.shape(`e2e-${i}-${name}`, node.port, link) : node.url
          const shapedBy = links ? 'toxiproxy' : 'model'
          const samples = Math.min(options.samples, c.samples ?? options.samples)
          rows.push(await measureOverLink(node, url, link, shapedBy, c, samples))
          if (options.browser?.cases(c)) {
            log(`end to end in Chromium: ${c.title}, ${name}`)
            rows.push(await measureInChromium(options.browser.client, node, url, link, shapedBy, c, samples))
          }
        }
      } finally {
        await node.stop()
      }
      // With the server stopped: the same default config in this process, beside native SEAL.
      if (options.twins && Object.keys(c.env).length === 0 && !c.queryEncoding) {
        log(`server side, WASM and native: ${c.title}`)
        try {
          const samples = Math.min(options.twins.samples, c.samples ?? options.twins.samples)
          twins.push(await measureEndToEndTwin(c, options.twins.harness, samples, log))
        } catch (error) {
          // E.g. a first answer with no noise budget left: the shaped rows above already say so.
          log(`server side of ${c.title} not measured: ${error instanceof Error ? error.message : String(error)}`)
        }
      }
    }
  } finally {
    await links?.[Symbol.asyncDispose]()
  }
  return {
    command: options.command,
    date: new Date().toISOString(),
    shaper,
    loadAverageBefore,
    loadAverageAfter: loadAverage(),
    rows,
    twins,
    skipped,
    limits: [...(options.limits ?? [])],
  }
}

/** The Markdown of the section. */
export function renderEndToEnd(report: EndToEndReport): string {
  const kb = (bytes: number) => (bytes / 1000).toFixed(1)
  const ms = (value: number | null | undefined) => (value === null || value === undefined ? '–' : value.toFixed(1))
  const lines = [
    '## End to end over a shaped link',
    '',
    `\`${report.command}\` — ${report.date}. Link shaped by ${report.shaper}. A real server process`,
    '(`EXECUTOR=pool`, one worker) per config; a client encrypts, sends the query through the link, waits,',
    'decrypts and ranks the top 10, as a user would: node-seal in Node (one thread), and for the rows',
    'marked Chromium he-core in a page of headless Chromium (another origin: CORS). Medians over the',
    `samples; upload and download are bytes ÷ rate (what the shaper enforces), "network" is the measured`,
    'request time minus the server total (both transfers and the round trip). "Exact": every score of',
    'every sample decrypted to the plaintext oracle (checked outside the timing). KB = 1000 bytes. Load',
    `average ${report.loadAverageBefore.join(' / ')} before, ${report.loadAverageAfter.join(' / ')} after.`,
    '',
    '| config | client | link | n [primes, bits] | baby steps | wire (query / response) | encrypt | upload | server total | download | network (measured) | decrypt + rank | **end to end** (min) | model | server CPU | query / response / keys KB | top hit | exact |',
    '| --- | --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |',
  ]
  for (const r of report.rows) {
    const link = `${r.link.name} ${r.link.upMbps}/${r.link.downMbps} Mbit/s, ${r.link.rttMs} ms${r.shapedBy === 'model' ? ' (modelled)' : ''}`
    lines.push(
      `| ${r.title} | ${r.client} | ${link} | ${r.config.polyModulusDegree} [${r.config.coeffModulusBits.join(', ')}] | ${r.config.babySteps} g=${r.config.babyStep} (${r.config.queryCiphertexts} up, keys ${r.config.galoisSteps.join(', ') || 'none'}) | ${r.config.wire} | ${ms(r.encryptMs)} | ${ms(r.uploadMs)} | ${ms(r.serverMs)} | ${ms(r.downloadMs)} | ${ms(r.networkMs)} | ${ms(r.decryptRankMs)} | **${ms(r.endToEndMs)}** (${ms(r.endToEndMinMs)}) | ${ms(r.modelMs)} | ${ms(r.serverCpuMs)} | ${kb(r.queryBytes)} / ${kb(r.responseBytes)} / ${kb(r.keyBytes)} | ${r.topHitFound ? 'yes' : 'NO'} | ${r.exact ? 'yes' : `NO${r.noiseExhausted > 0 ? ` (noise budget exhausted in ${r.noiseExhausted} of ${r.samples})` : ''}`} |`,
    )
  }
  for (const { title, reason } of report.skipped) lines.push('', `Not measured: ${title} — ${reason}.`)
  for (const { title, reason } of report.limits) {
    lines.push('', `Not measured, a limit of the server's defaults: ${title} — ${reason}.`)
  }
  const twins = report.twins.length > 0 ? `\n${renderEndToEndTwins(report.twins)}` : ''
  return `${lines.join('\n')}\n${twins}`
}

/** Where the section is written. */
export function endToEndPaths(outDir: string): { md: string; json: string } {
  return { md: join(outDir, 'search-end-to-end.md'), json: join(outDir, 'search-end-to-end.json') }
}

/** Every row's decrypted score is the oracle's, and no unused slot decrypted to anything but 0. */
function matchesOracle(decrypted: { scores: Float64Array; strayNonZeroSlots: number }, scores: ArrayLike<number>) {
  if (decrypted.strayNonZeroSlots !== 0) return false
  for (let row = 0; row < scores.length; row++) if (decrypted.scores[row] !== scores[row]) return false
  return true
}

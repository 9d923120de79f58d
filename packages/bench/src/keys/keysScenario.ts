import { getHeContext } from '@sealbox/he-core'
import { SealboxClient } from '@sealbox/he-core/client'
import {
  plaintextSearchScores,
  type SearchConfig,
  syntheticSearchDatabase,
  verifySearchConfig,
} from '@sealbox/he-core/search'
import { ServerNode, type TempPostgres } from '@sealbox/testkit'
import { BenchError } from '../BenchError.ts'
import { medianOfFinite } from '../core/stats.ts'
import { runLoad } from '../load/runLoadCell.ts'
import { scrapeMetrics, sumMetric } from '../load/scrapeMetrics.ts'
import type { LoadResult } from '../load/serverBenchProtocol.ts'
import type { KeysBenchSettings } from './keysBenchSettings.ts'
import { type LoadSummary, summarizeLoad } from './summarizeLoad.ts'
import {
  benchTenant,
  ensureUserKeyMaterial,
  readUserKeyMaterial,
  userQueryVector,
  userSearchClient,
  writeBenchTokensFile,
} from './userKeyMaterial.ts'

/** Which key store and scheduling one server run uses. */
export interface ScenarioSpec {
  store: 'file' | 'postgres'
  scheduler: 'affinity' | 'round-robin'
  /** KEY_STORE_KERNEL_FORMS (absent in reports from before it: on). */
  storeKernelForms?: boolean
}

/** One population size measured against its all-hot baseline. */
export interface UsersRow {
  users: number
  /** Users' deserialized keys / all workers' key caches together. */
  keysOverCache: number
  hot: LoadSummary
  load: LoadSummary
  /** Median over rounds of load throughput / all-hot throughput (runs seconds apart). */
  normalized: number
  roundRatios?: number[]
  /**
   * Median over rounds of all-hot CPU per request / measured CPU per request (worker-thread
   * CPU time from Server-Timing): the throughput ratio with other processes' load taken out.
   */
  cpuNormalized?: number
  cpuRatios?: number[]
  /** Key lookups by tier (worker, bytes, store) from the server's /metrics, warm-up included. */
  serverLookups: Record<string, number>
}

/** A key set's first query right after upload, and the next one. */
export interface ColdRow {
  user: number
  uploadMs: number
  coldMs: number
  hotMs: number
  coldPhases: Record<string, number>
  hotPhases: Record<string, number>
}

export interface ScenarioResult extends ScenarioSpec {
  /** What the server says it runs (from /metrics `sealbox_config_info`; "server default" when it does not say). */
  serverStore: string
  serverScheduler: string
  rows: UsersRow[]
  cold: ColdRow[]
  uploadMs: { count: number; median: number }
  verified: { checked: number; exact: number }
}

/** Facts every scenario shares, found once. */
export interface BenchFacts {
  config: SearchConfig
  uploadBytes: number
  /**
   * What one user's keys take in the server's caches: measured on a probe server (its
   * node bytes cache after one upload, the kernel form when the search runs in the
   * key-switching kernel), else SEAL's deserialized size.
   */
  keyHeapBytes: number
  /** Where `keyHeapBytes` comes from. */
  keyBytesSource: 'server' | 'seal-estimate'
  keyCacheBytes: number
  /** The production tenants' TOKENS_FILE (one line per user). */
  tokensFile: string
}

const KEY_SET = 'main'

/** Several runs as one (samples concatenated, wall times added). */
function mergeLoadResults(
  runs: readonly LoadResult[],
): Pick<LoadResult, 'samples' | 'wallMs' | 'stoppedBy' | 'firstResponses'> {
  return {
    samples: runs.flatMap((run) => run.samples),
    wallMs: runs.reduce((sum, run) => sum + run.wallMs, 0),
    stoppedBy: runs.some((run) => run.stoppedBy === 'time') ? 'time' : 'requests',
    firstResponses: Object.assign({}, ...runs.map((run) => run.firstResponses)),
  }
}

function serverEnv(
  settings: KeysBenchSettings,
  spec: ScenarioSpec,
  keyStore: string | undefined,
  cacheBytes: number,
  tokensFile: string,
) {
  return {
    MODE: 'production',
    TOKENS_FILE: tokensFile,
    WORKERS: String(settings.workers),
    KEY_CACHE_BYTES: String(cacheBytes),
    SEARCH_BABY_STEPS: 'server',
    SYNTHETIC_ROWS: String(settings.rows),
    SYNTHETIC_DIM: String(settings.dimension),
    SYNTHETIC_SEED: '1',
    QUEUE_SIZE: String(Math.max(64, settings.concurrency * 4)),
    TENANT_QUEUE_SIZE: String(Math.max(32, settings.concurrency * 2)),
    MAX_KEYSETS: '4',
    SCHEDULING: spec.scheduler,
    KEY_BYTES_CACHE_BYTES: settings.bytesTier ? String(256 * 2 ** 20) : '0',
    KEY_STORE_KERNEL_FORMS: String(spec.storeKernelForms ?? true),
    ...(keyStore ? { KEY_STORE: keyStore } : {}),
  }
}

/** The server as one bench user (a production tenant with its own token). */
const asUser = (server: SealboxClient, user: number) => server.with({ token: benchTenant(user).token })

async function put(server: SealboxClient, user: number, bytes: Uint8Array): Promise<number> {
  const started = performance.now()
  await asUser(server, user).putKeySet(KEY_SET, bytes)
  return performance.now() - started
}

async function searchOnce(server: SealboxClient, user: number, query: Uint8Array) {
  const started = performance.now()
  const { responses, timing } = await asUser(server, user).search(query, { keySet: KEY_SET })
  return { ms: performance.now() - started, phases: timing, body: responses[0] ?? new Uint8Array() }
}

/** Decrypts an answer with the user's secret key and compares it with the plaintext oracle. */
async function exactAnswer(settings: KeysBenchSettings, config: SearchConfig, user: number, body: Uint8Array) {
  const material = await readUserKeyMaterial(settings.cacheDir, config.configId, user, settings.distinctKeys)
  if (!material) return false
  using client = await userSearchClient(config, material)
  const database = syntheticSearchDatabase({ rows: settings.rows, dimension: settings.dimension, seed: 1 })
  // A re-labelled user sends the query of the key set it shares (user mod distinctKeys).
  const oracle = plaintextSearchScores(
    config,
    database,
    userQueryVector(config.dimension, user % settings.distinctKeys),
  )
  const scores = client.decryptScores(body).scores
  client.keySet.dispose()
  return scores.every((score, row) => score === oracle[row])
}

/** Learns the search config and key sizes from a short-lived server, and makes every user's keys. */
export async function benchFacts(settings: KeysBenchSettings, log: (line: string) => void): Promise<BenchFacts> {
  const users = Math.max(...settings.users) + settings.coldSamples
  const tokensFile = await writeBenchTokensFile(settings.cacheDir, users)
  const probe = await ServerNode.start({
    name: 'keys-probe',
    env: {
      // Caches that hold the probe's key set: an upload too large for them is refused (422).
      ...serverEnv(settings, { store: 'file', scheduler: 'affinity' }, undefined, 256 * 2 ** 20, tokensFile),
      KEY_BYTES_CACHE_BYTES: String(256 * 2 ** 20),
    },
  })
  let config: SearchConfig
  let first: Awaited<ReturnType<typeof readUserKeyMaterial>>
  let measured = 0
  try {
    const client = new SealboxClient({ baseUrl: probe.url })
    config = verifySearchConfig(await client.searchConfig())
    const distinct = Math.min(users, settings.distinctKeys)
    log(`[keys] key material for ${distinct} distinct key sets, ${users} users (cached in ${settings.cacheDir})`)
    await ensureUserKeyMaterial(settings.cacheDir, config, distinct, (ready, made) =>
      log(`[keys]   ${ready}/${distinct} key sets ready (${made} made now)`),
    )
    first = await readUserKeyMaterial(settings.cacheDir, config.configId, 0)
    if (first) {
      // The upload leaves the search's form of the keys in the node's bytes cache: its size is one user's.
      await put(client, 0, first.galoisKeys)
      measured = sumMetric(await scrapeMetrics(client), 'sealbox_key_bytes_cache_bytes', {})
    }
  } finally {
    await probe.stop()
  }
  const ctx = await getHeContext(config.params)
  const keyBytesSource = measured > 0 ? 'server' : 'seal-estimate'
  const keyHeapBytes = measured > 0 ? measured : config.galoisSteps.length * ctx.facts.sizes.galoisKeyPerStep
  // The budget that makes `settings.pressureUsers` users' keys `settings.pressure` times
  // what all workers' caches hold together.
  const total = (settings.pressureUsers * keyHeapBytes) / settings.pressure
  const keyCacheBytes = Math.max(keyHeapBytes, Math.floor(total / settings.workers))
  return {
    config,
    uploadBytes: first?.galoisKeys.length ?? 0,
    keyHeapBytes,
    keyBytesSource,
    keyCacheBytes,
    tokensFile,
  }
}

/** One server (one store, one scheduling) through every population size, cold keys and checks. */
export async function runScenario(
  settings: KeysBenchSettings,
  facts: BenchFacts,
  spec: ScenarioSpec,
  postgres: TempPostgres | undefined,
  log: (line: string) => void,
): Promise<ScenarioResult> {
  const { config } = facts
  const keyStore =
    spec.store === 'postgres' && postgres
      ? await postgres.createDatabase(`keys_${spec.scheduler.replace('-', '_')}_${Date.now()}`)
      : undefined
  const node = await ServerNode.start({
    name: `keys-${spec.store}-${spec.scheduler}${spec.storeKernelForms === false ? '-no-kernel-forms' : ''}`,
    env: serverEnv(settings, spec, keyStore, facts.keyCacheBytes, facts.tokensFile),
  })
  const server = new SealboxClient({ baseUrl: node.url })
  try {
    const info = (await scrapeMetrics(server)).find((sample) => sample.name === 'sealbox_config_info')
    const serverStore = info?.labels.store ?? 'file (server default)'
    const serverScheduler = info?.labels.scheduler ?? 'first free worker (server default)'
    if (spec.store === 'postgres' && !serverStore.startsWith('postgres')) {
      throw new BenchError(
        'INVALID_FLAGS',
        `this server does not run a PostgreSQL key store (it reports "${serverStore}"): KEY_STORE unsupported`,
      )
    }
    const maxUsers = Math.max(...settings.users)
    log(`[keys] ${spec.store}/${spec.scheduler}: uploading ${maxUsers} users' keys`)
    const uploads: number[] = []
    // User i's query (a copy: the file it came from holds keys too); re-labelled users share their key set's.
    const queries: Uint8Array[] = []
    for (let start = 0; start < maxUsers; start += 4) {
      const batch = Array.from({ length: Math.min(4, maxUsers - start) }, (_, i) => start + i)
      const times = await Promise.all(
        batch.map(async (user) => {
          const material = await readUserKeyMaterial(settings.cacheDir, config.configId, user, settings.distinctKeys)
          if (!material) throw new BenchError('INTERNAL', `no key material for user ${user}`)
          queries[user] = queries[user % settings.distinctKeys] ?? material.query.slice()
          return put(server, user, material.galoisKeys)
        }),
      )
      uploads.push(...times)
    }
    /** Users 0…count−1, each sending its own query under its own tenant. */
    const population = (count: number) => ({
      tokens: Array.from({ length: count }, (_, user) => benchTenant(user).token),
      calls: { route: 'search' as const, queries: queries.slice(0, count), keySet: KEY_SET },
    })
    const job = {
      baseUrl: node.url,
      requests: settings.requests,
      warmupRequests: settings.warmupRequests,
      maxSeconds: settings.maxSeconds,
      concurrency: settings.concurrency,
      scrapeMetrics: false,
      // Every error reply is a measured outcome; a server that stops answering fails the run.
      failWithoutAnswer: true,
    }
    const rows: UsersRow[] = []
    let checked = 0
    let exact = 0
    for (const [i, users] of settings.users.entries()) {
      // The all-hot baseline (one user whose keys every worker holds after a short warm-up,
      // so no request loads keys) alternates with the measured population in `rounds`
      // short runs: on a shared machine the load of others drifts over minutes, and each
      // round's ratio compares runs seconds apart. Reported: the median ratio.
      const perRound = Math.max(1, Math.ceil(settings.requests / settings.rounds))
      const hotRuns: LoadResult[] = []
      const loadRuns: LoadResult[] = []
      const ratios: number[] = []
      const cpuRatios: number[] = []
      if (settings.warmSweep) await sweepUsers(settings, server, config, users)
      const before = await scrapeMetrics(server)
      const keep = [0, Math.floor(users / 2), users - 1]
      for (let round = 0; round < settings.rounds; round++) {
        const hotRun = await runLoad({
          ...job,
          ...population(1),
          zipf: { s: settings.zipfS, seed: 1000 + i },
          requests: perRound,
          warmupRequests: Math.min(settings.warmupRequests, 2 * settings.concurrency),
          keepResponsesOf: [],
        })
        const loadRun = await runLoad({
          ...job,
          ...population(users),
          zipf: { s: settings.zipfS, seed: 1 + i + 100 * round },
          requests: perRound,
          warmupRequests: round === 0 ? settings.warmupRequests : 2 * settings.concurrency,
          keepResponsesOf: round === 0 ? keep : [],
        })
        hotRuns.push(hotRun)
        loadRuns.push(loadRun)
        const [loadSummary, hotSummary] = [summarizeLoad(loadRun), summarizeLoad(hotRun)]
        ratios.push(loadSummary.throughput / hotSummary.throughput)
        if (loadSummary.cpuMs > 0) cpuRatios.push(hotSummary.cpuMs / loadSummary.cpuMs)
      }
      const after = await scrapeMetrics(server)
      const result = mergeLoadResults(loadRuns)
      const hot = summarizeLoad(mergeLoadResults(hotRuns))
      const load = summarizeLoad(result)
      const serverLookups: Record<string, number> = {}
      for (const sample of after) {
        if (sample.name !== 'sealbox_key_tier_lookups_total' || sample.labels.tier === undefined) continue
        const was = sumMetric(before, sample.name, sample.labels)
        serverLookups[sample.labels.tier] = (serverLookups[sample.labels.tier] ?? 0) + sample.value - was
      }
      for (const [user, body] of Object.entries(result.firstResponses)) {
        checked++
        if (await exactAnswer(settings, config, Number(user), body)) exact++
      }
      const keysOverCache = (users * facts.keyHeapBytes) / (facts.keyCacheBytes * settings.workers)
      const normalized = medianOfFinite(ratios)
      const cpuNormalized = cpuRatios.length > 0 ? medianOfFinite(cpuRatios) : undefined
      rows.push({
        users,
        keysOverCache,
        hot,
        load,
        normalized,
        roundRatios: ratios,
        ...(cpuNormalized === undefined ? {} : { cpuNormalized, cpuRatios }),
        serverLookups,
      })
      log(
        `[keys]   U=${users} (${keysOverCache.toFixed(1)}× cache): ${load.throughput.toFixed(1)} req/s vs all-hot ${hot.throughput.toFixed(1)}; median round ratio ${(100 * normalized).toFixed(0)}% (${ratios.map((r) => (100 * r).toFixed(0)).join(', ')}), CPU-normalised ${cpuNormalized === undefined ? '–' : `${(100 * cpuNormalized).toFixed(0)}%`}; tiers worker/bytes/store ${(100 * load.tiers.worker).toFixed(0)}/${(100 * load.tiers.bytes).toFixed(0)}/${(100 * load.tiers.store).toFixed(0)}%, errors ${load.errors}`,
      )
    }
    const cold: ColdRow[] = []
    for (let j = 0; j < settings.coldSamples; j++) {
      const user = maxUsers + j
      const material = await readUserKeyMaterial(settings.cacheDir, config.configId, user, settings.distinctKeys)
      if (!material) throw new BenchError('INTERNAL', `no key material for user ${user}`)
      const uploadMs = await put(server, user, material.galoisKeys)
      const first = await searchOnce(server, user, material.query)
      const second = await searchOnce(server, user, material.query)
      checked++
      if (await exactAnswer(settings, config, user, first.body)) exact++
      cold.push({
        user,
        uploadMs,
        coldMs: first.ms,
        hotMs: second.ms,
        coldPhases: first.phases,
        hotPhases: second.phases,
      })
    }
    return {
      ...spec,
      serverStore,
      serverScheduler,
      rows,
      cold,
      uploadMs: { count: uploads.length, median: medianOfFinite(uploads) },
      verified: { checked, exact },
    }
  } finally {
    await node.stop()
  }
}

/**
 * One query from each of `users`, least popular first (`concurrency` at a time): a node
 * that has served the population for a while, whose LRU tiers keep the most popular users
 * — not the last uploads of a larger population, whose first touches would all read the
 * store during a short run.
 */
async function sweepUsers(settings: KeysBenchSettings, server: SealboxClient, config: SearchConfig, users: number) {
  const order = Array.from({ length: users }, (_, i) => users - 1 - i)
  for (let start = 0; start < order.length; start += settings.concurrency) {
    await Promise.all(
      order.slice(start, start + settings.concurrency).map(async (user) => {
        const material = await readUserKeyMaterial(settings.cacheDir, config.configId, user, settings.distinctKeys)
        if (!material) throw new BenchError('INTERNAL', `no key material for user ${user}`)
        await searchOnce(server, user, material.query)
      }),
    )
  }
}

/**
 * The end-to-end benchmark's browser client: he-core's private search client in a page,
 * talking to a real server (through the shaped link) with the same calls and the same
 * timing points as the Node client in measureEndToEnd.ts. The benchmark drives it with
 * Playwright: `__sealboxSetup(api)` opens a session, uploads the keys and sends one
 * untimed query; `__sealboxMeasure(samples)` times the queries and returns the samples.
 */
import { getHeContext, HeError } from '@sealbox/he-core'
import { SealboxClient, TIMING_PHASES } from '@sealbox/he-core/client'
import {
  PrivateSearchClient,
  plaintextSearchScores,
  type SearchConfig,
  type SearchDatabase,
  syntheticSearchDatabase,
  syntheticSearchQuery,
  topKIndices,
} from '@sealbox/he-core/search'
import { BenchError } from '../../BenchError.ts'
import type { BrowserClientRun, BrowserClientSetup } from './browserClientProtocol.ts'

const SERVER_PHASES = TIMING_PHASES.filter((phase) => phase !== 'store' && phase !== 'cpu')

interface State {
  client: SealboxClient
  search: PrivateSearchClient
  config: SearchConfig
  database: SearchDatabase
  keySet: string | undefined
}

let state: State | undefined
const status = document.getElementById('status')

async function setup(api: string): Promise<BrowserClientSetup> {
  const { client } = await new SealboxClient({ baseUrl: api }).createSession()
  const { database: _facts, fingerprint: _fingerprint, ...config } = await client.searchConfig()
  const ctx = await getHeContext(config.params)
  const search = PrivateSearchClient.create(ctx, config)
  const keys = search.evaluationKeys()
  if (keys) await client.putKeySet('e2e', keys)
  const keySet = keys ? 'e2e' : undefined
  // The benchmark's servers serve the synthetic database of seed 1 (SYNTHETIC_SEED).
  const database = syntheticSearchDatabase({ rows: config.rows, dimension: config.dimension, seed: 1 })
  // One untimed query: the worker's key cache, the connection and the CORS preflight (cached by the browser).
  await client.search(search.encryptQuery(syntheticSearchQuery(config.dimension, 999)), keySet ? { keySet } : {})
  state = { client, search, config, database, keySet }
  if (status) status.textContent = 'ready'
  return { keyBytes: keys?.byteLength ?? 0, userAgent: navigator.userAgent }
}

async function measure(samples: number): Promise<BrowserClientRun> {
  if (!state) throw new BenchError('INTERNAL', 'call __sealboxSetup first')
  const { client, search, config, database, keySet } = state
  const rows: BrowserClientRun['samples'] = []
  let topHitFound = true
  let exact = true
  let noiseExhausted = 0
  for (let i = 0; i < samples; i++) {
    const vector = syntheticSearchQuery(config.dimension, i + 1)
    const t0 = performance.now()
    const query = search.encryptQuery(vector)
    const t1 = performance.now()
    const result = await client.search(query, keySet ? { keySet } : {})
    const t2 = performance.now()
    let hits: { row: number }[] | null
    try {
      hits = search.rank(result.responses, 10).hits
    } catch (error) {
      if (!(error instanceof HeError && error.code === 'NOISE_BUDGET_EXHAUSTED')) throw error
      hits = null
    }
    const t3 = performance.now()
    const scores = plaintextSearchScores(config, database, vector)
    if (!hits) noiseExhausted++
    if (hits?.[0]?.row !== topKIndices(scores, 1)[0]) topHitFound = false
    if (!hits || !matchesOracle(search.decryptScores(result.responses), scores)) exact = false
    const timing = result.timing as Partial<Record<string, number>>
    rows.push({
      encrypt: t1 - t0,
      request: t2 - t1,
      server: SERVER_PHASES.reduce((sum, phase) => sum + (timing[phase] ?? 0), 0),
      decrypt: t3 - t2,
      up: query.byteLength,
      down: result.responses.reduce((sum, r) => sum + r.byteLength, 0),
    })
    if (status) status.textContent = `query ${i + 1} of ${samples}`
  }
  return { samples: rows, topHitFound, exact, noiseExhausted }
}

const page = globalThis as unknown as {
  __sealboxSetup: typeof setup
  __sealboxMeasure: typeof measure
}
page.__sealboxSetup = setup
page.__sealboxMeasure = measure

/** Every row's decrypted score is the oracle's, and no unused slot decrypted to anything but 0. */
function matchesOracle(decrypted: { scores: Float64Array; strayNonZeroSlots: number }, scores: ArrayLike<number>) {
  if (decrypted.strayNonZeroSlots !== 0) return false
  for (let row = 0; row < scores.length; row++) if (decrypted.scores[row] !== scores[row]) return false
  return true
}

import { getHeContext, HeError } from '@sealbox/he-core'
import { SealboxClient, TIMING_PHASES } from '@sealbox/he-core/client'
import {
  PrivateSearchClient,
  plaintextSearchScores,
  resolveSearchConfig,
  type SearchConfig,
  type SearchLinkRates,
  syntheticSearchDatabase,
  syntheticSearchQuery,
  topKIndices,
} from '@sealbox/he-core/search'
import type { ServerNode } from '@sealbox/testkit'
import { BenchError } from '../BenchError.ts'
import { parsePrometheus, processCpuSeconds } from '../load/scrapeMetrics.ts'
import type { BrowserClientSample } from './browserClient/browserClientProtocol.ts'
import type { EndToEndRow } from './EndToEndReport.ts'
import type { EndToEndCase } from './endToEndCases.ts'
import { summariseEndToEnd } from './summariseEndToEnd.ts'

/** The server process's CPU seconds so far (all threads), from its /metrics; null when it reports none. */
export async function serverCpuSeconds(url: string): Promise<number | null> {
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

/**
 * One config over one link with the client in this process (node-seal): an untimed query,
 * then `samples` timed ones, each checked against the plaintext oracle outside the timing.
 */
export async function measureOverLink(
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
  return summariseEndToEnd({
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

/** Every row's decrypted score is the oracle's, and no unused slot decrypted to anything but 0. */
function matchesOracle(decrypted: { scores: Float64Array; strayNonZeroSlots: number }, scores: ArrayLike<number>) {
  if (decrypted.strayNonZeroSlots !== 0) return false
  for (let row = 0; row < scores.length; row++) if (decrypted.scores[row] !== scores[row]) return false
  return true
}

import { HeError } from '@sealbox/he-core'
import type { SealboxClient } from '@sealbox/he-core/client'
import {
  type PrivateSearchClient,
  plaintextSearchScores,
  type SearchConfig,
  type SearchDatabase,
  syntheticSearchQuery,
  topKIndices,
} from '@sealbox/he-core/search'
import type { BrowserClientRun, BrowserClientSample } from './browserClient/browserClientProtocol.ts'
import { serverTotalMs } from './serverTotalMs.ts'

/**
 * The end-to-end client's timed queries, the same in Node and in the browser page: per
 * sample (query vectors of seeds 1, 2, …) encrypt, send, wait, then decrypt and rank the top
 * 10, timed apart; outside the timing, the top hit and every decrypted score are checked
 * against the plaintext oracle. A response with a block out of noise budget (the client
 * refuses to rank it: NOISE_BUDGET_EXHAUSTED) is counted, not the end of the run.
 */
export async function timeSearchQueries(options: {
  client: SealboxClient
  search: PrivateSearchClient
  config: SearchConfig
  database: SearchDatabase
  keySet: string | undefined
  samples: number
  onSample?: (done: number) => void
}): Promise<BrowserClientRun> {
  const { client, search, config, database } = options
  const request = options.keySet ? { keySet: options.keySet } : {}
  const run: BrowserClientRun = { samples: [], topHitFound: true, exact: true, noiseExhausted: 0 }
  for (let i = 0; i < options.samples; i++) {
    const vector = syntheticSearchQuery(config.dimension, i + 1)
    const { sample, result, hits } = await timeClientQuery(client, search, vector, request)
    const scores = plaintextSearchScores(config, database, vector)
    if (!hits) run.noiseExhausted++
    if (hits?.[0]?.row !== topKIndices(scores, 1)[0]) run.topHitFound = false
    if (!hits || !decryptsToOracle(search.decryptScores(result.responses), scores)) run.exact = false
    run.samples.push(sample)
    options.onSample?.(i + 1)
  }
  return run
}

/**
 * One query as the client a user runs sees it: encrypt, the search call, then decrypt and
 * rank the top 10 (null when a response block has no noise budget left), timed apart.
 */
export async function timeClientQuery(
  client: SealboxClient,
  search: PrivateSearchClient,
  vector: ArrayLike<number>,
  request: { keySet?: string },
) {
  const t0 = performance.now()
  const query = search.encryptQuery(vector)
  const t1 = performance.now()
  const result = await client.search(query, request)
  const t2 = performance.now()
  const hits = rankOrNull(search, result.responses)
  const t3 = performance.now()
  const sample: BrowserClientSample = {
    encrypt: t1 - t0,
    request: t2 - t1,
    server: serverTotalMs(result.timing),
    decrypt: t3 - t2,
    up: query.byteLength,
    down: result.responses.reduce((sum, r) => sum + r.byteLength, 0),
  }
  return { sample, result, hits }
}

/** The client's top 10, or null when a response block has no noise budget left. */
function rankOrNull(search: PrivateSearchClient, responses: readonly Uint8Array[]) {
  try {
    return search.rank(responses, 10).hits
  } catch (error) {
    if (error instanceof HeError && error.code === 'NOISE_BUDGET_EXHAUSTED') return null
    throw error
  }
}

/** Every row's decrypted score is the oracle's, and no unused slot decrypted to anything but 0. */
function decryptsToOracle(decrypted: { scores: Float64Array; strayNonZeroSlots: number }, scores: ArrayLike<number>) {
  if (decrypted.strayNonZeroSlots !== 0) return false
  for (let row = 0; row < scores.length; row++) if (decrypted.scores[row] !== scores[row]) return false
  return true
}

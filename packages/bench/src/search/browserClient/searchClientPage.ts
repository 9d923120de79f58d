/**
 * The end-to-end benchmark's browser client: he-core's private search client in a page,
 * talking to a real server (through the shaped link) with the same calls and the same
 * timing points as the Node client in measureOverLink.ts (timeSearchQueries). The benchmark drives it with
 * Playwright: `__sealboxSetup(api)` opens a session, uploads the keys and sends one
 * untimed query; `__sealboxMeasure(samples)` times the queries and returns the samples.
 */
import { getHeContext } from '@sealbox/he-core'
import { SealboxClient } from '@sealbox/he-core/client'
import {
  PrivateSearchClient,
  type SearchConfig,
  type SearchDatabase,
  syntheticSearchDatabase,
  syntheticSearchQuery,
} from '@sealbox/he-core/search'
import { BenchError } from '../../BenchError.ts'
import { timeSearchQueries } from '../timeSearchQueries.ts'
import type { BrowserClientRun, BrowserClientSetup } from './browserClientProtocol.ts'

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
  return timeSearchQueries({
    ...state,
    samples,
    onSample(done) {
      if (status) status.textContent = `query ${done} of ${samples}`
    },
  })
}

const page = globalThis as unknown as {
  __sealboxSetup: typeof setup
  __sealboxMeasure: typeof measure
}
page.__sealboxSetup = setup
page.__sealboxMeasure = measure

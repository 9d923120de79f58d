import type { SealboxClient } from '../client/SealboxClient.ts'
import { HeError } from '../errors/HeError.ts'
import { getHeContext } from '../params/ContextCache.ts'
import { embedText } from '../search/demo/embedText.ts'
import { PrivateSearchClient, type SearchHit } from '../search/PrivateSearchClient.ts'
import { verifySearchConfig } from '../search/searchConfigInputOf.ts'

/** What to search for: text (embedded with `embedText`, the demo database's embedding) or a vector. */
export interface SealboxSearchOptions {
  client: SealboxClient
  /** Embedded with he-core's `embedText` at the server's dimension: meaningful on `DATABASE=demo` and on databases embedded the same way. */
  text?: string
  /** A query vector of the server's dimension (your own embedding). */
  vector?: readonly number[]
  /** The key set the search's Galois keys are uploaded as (replaced on each run). */
  keySet?: string
  /** Hits to return. */
  top?: number
}

/** The named hits of one private search, and what it cost. */
export interface SealboxSearchResult {
  hits: SearchHit[]
  rows: number
  dimension: number
  /** Bytes of Galois keys uploaded (0 when the server's config needs none). */
  keyBytes: number
  minNoiseBudget: number
}

/**
 * One private search against a sealbox server, end to end, the way a production client
 * does it: the server's search config and catalog (row ids and metadata), a fresh secret
 * key kept here, the evaluation keys uploaded under `keySet` when the config needs them,
 * the encrypted query, and the hits decrypted and named locally. Everything SEAL made is
 * deleted before it returns.
 */
export async function sealboxSearch(options: SealboxSearchOptions): Promise<SealboxSearchResult> {
  const { client } = options
  const config = verifySearchConfig(await client.searchConfig())
  const vector = options.vector ?? (options.text === undefined ? undefined : embedText(options.text, config.dimension))
  if (vector === undefined) throw new HeError('INVALID_INPUT', 'give the text or the vector to search for')
  if (vector.length !== config.dimension) {
    throw new HeError(
      'INVALID_INPUT',
      `the query vector has ${vector.length} numbers; the server's database has dimension ${config.dimension}`,
    )
  }
  const catalog = await client.searchCatalog()
  using search = PrivateSearchClient.create(await getHeContext(config.params), config, { catalog })
  const keys = search.evaluationKeys()
  const keySet = options.keySet ?? 'sealbox-search'
  if (keys) await client.putKeySet(keySet, keys)
  const { responses } = await client.search(search.encryptQuery(vector), keys ? { keySet } : {})
  const response = responses[0]
  if (response === undefined) throw new HeError('INTERNAL', 'the server answered no response for the query')
  const { hits, minNoiseBudget } = search.rank(response, options.top ?? 5)
  return { hits, rows: config.rows, dimension: config.dimension, keyBytes: keys?.length ?? 0, minNoiseBudget }
}

import { EvaluationKeys } from '../keys/EvaluationKeys.ts'
import { getHeContext } from '../params/ContextCache.ts'
import type { HeContext } from '../params/HeContext.ts'
import { PrivateSearchClient } from './PrivateSearchClient.ts'
import { PrivateSearchIndex } from './PrivateSearchIndex.ts'
import { resolveSearchConfig, type SearchConfig } from './SearchConfig.ts'
import type { SearchConfigInput } from './SearchConfigInput.ts'
import type { SearchDatabase } from './SearchDatabase.ts'
import { syntheticSearchDatabase } from './syntheticSearchDatabase.ts'

/*
 * Shared set-up of the search tests (not shipped in the public API): synthetic
 * databases are cached per shape, so a suite builds each one once.
 */

const databases = new Map<string, SearchDatabase>()

/** The synthetic database of a shape (seed fixed by the shape), built once per test file. */
export function testDatabase(rows: number, dimension: number): SearchDatabase {
  const key = `${rows}x${dimension}`
  let database = databases.get(key)
  if (!database) {
    database = syntheticSearchDatabase({ rows, dimension, seed: rows * 31 + dimension, withMetadata: true })
    databases.set(key, database)
  }
  return database
}

/** A processed index, a client and the client's uploaded keys (loaded as a server would). */
export interface SearchFixture extends Disposable {
  ctx: HeContext
  config: SearchConfig
  database: SearchDatabase
  index: PrivateSearchIndex
  client: PrivateSearchClient
  keys: EvaluationKeys | null
}

export async function searchFixture(input: SearchConfigInput): Promise<SearchFixture> {
  const config = resolveSearchConfig(input)
  const ctx = await getHeContext(config.params)
  const database = testDatabase(config.rows, config.dimension)
  const index = PrivateSearchIndex.process(ctx, database, config)
  const client = PrivateSearchClient.create(ctx, config, {
    catalog: { ids: database.ids, metadata: database.metadata ?? [] },
  })
  const keyBytes = client.evaluationKeys()
  const keys = keyBytes === null ? null : EvaluationKeys.load(ctx, keyBytes)
  return {
    ctx,
    config,
    database,
    index,
    client,
    keys,
    [Symbol.dispose]() {
      keys?.dispose()
      client.dispose()
      index.dispose()
    },
  }
}

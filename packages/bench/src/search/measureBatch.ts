import { getHeContext } from '@sealbox/he-core'
import {
  PrivateSearchClient,
  PrivateSearchIndex,
  resolveSearchConfig,
  type SearchConfigInput,
  type SearchDatabase,
  syntheticSearchQuery,
} from '@sealbox/he-core/search'
import { type Spread, spread } from './searchStats.ts'

/** Several users' queries evaluated in one `evaluateBatch` call. */
export interface BatchMeasurement {
  users: number
  rounds: number
  /** Wall time of one batch call (ms). */
  batch: Spread
  /** Per-query total time reported inside the batch (ms). */
  perQuery: Spread
  allOk: boolean
}

/** `users` clients (each its own key set) send one query each, in one batch call, `rounds` times. */
export async function measureBatch(
  input: SearchConfigInput,
  database: SearchDatabase,
  users: number,
  rounds: number,
): Promise<BatchMeasurement> {
  const config = resolveSearchConfig({ ...input, rows: database.rows, dimension: database.dimension })
  const ctx = await getHeContext(config.params)
  using index = PrivateSearchIndex.process(ctx, database, config)
  const clients = Array.from({ length: users }, () => PrivateSearchClient.create(ctx, config))
  try {
    const items = clients.map((client, i) => ({
      query: client.encryptQuery(syntheticSearchQuery(config.dimension, 300 + i)),
      keys: null,
    }))
    index.evaluateBatch(items)
    const batch: number[] = []
    const perQuery: number[] = []
    let allOk = true
    for (let round = 0; round < rounds; round++) {
      const started = performance.now()
      const results = index.evaluateBatch(items)
      batch.push(performance.now() - started)
      for (const result of results) {
        if (result.ok) perQuery.push(result.evaluation.timings.totalMs)
        else allOk = false
      }
    }
    return { users, rounds, batch: spread(batch), perQuery: spread(perQuery), allOk }
  } finally {
    for (const client of clients) client.dispose()
  }
}

import { EvaluationKeys, getHeContext } from '@sealbox/he-core'
import {
  PrivateSearchClient,
  PrivateSearchIndex,
  plaintextSearchScores,
  resolveSearchConfig,
  type SearchBatchResult,
  type SearchConfigInput,
  type SearchDatabase,
  syntheticSearchQuery,
} from '@sealbox/he-core/search'
import { BenchError } from '../BenchError.ts'
import { type Spread, spread } from '../core/stats.ts'

/** Several users' queries evaluated in one `evaluateBatch` call. */
export interface BatchMeasurement {
  users: number
  rounds: number
  /** Wall time of one batch call (ms). */
  batch: Spread
  /** Per-query total time reported inside the batch (ms). */
  perQuery: Spread
  /** Every answer of every round decrypted to the plaintext oracle (else the run stops with ENGINE_FAILED). */
  allOk: boolean
}

/**
 * `users` clients (each its own key set, its own Galois keys uploaded as a server loads
 * them) send one query each, in one batch call, `rounds` times. Every answer of every
 * round is decrypted by its client and compared with the plaintext oracle outside the
 * timing: a refused query or a wrong score throws ENGINE_FAILED, so the run fails
 * instead of reporting a time for wrong answers.
 */
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
  const keys = clients.map((client) => {
    const envelope = client.evaluationKeys()
    return envelope ? EvaluationKeys.load(ctx, envelope) : null
  })
  try {
    const vectors = clients.map((_, i) => syntheticSearchQuery(config.dimension, 300 + i))
    const oracles = vectors.map((vector) => plaintextSearchScores(config, database, vector))
    const items = clients.map((client, i) => ({
      query: client.encryptQuery(vectors[i] as Float64Array),
      keys: keys[i] ?? null,
    }))
    checkBatchAnswers(index.evaluateBatch(items), clients, oracles, 'warm-up')
    const batch: number[] = []
    const perQuery: number[] = []
    for (let round = 0; round < rounds; round++) {
      const started = performance.now()
      const results = index.evaluateBatch(items)
      batch.push(performance.now() - started)
      checkBatchAnswers(results, clients, oracles, `round ${round + 1}`)
      for (const result of results) if (result.ok) perQuery.push(result.evaluation.timings.totalMs)
    }
    return { users, rounds, batch: spread(batch), perQuery: spread(perQuery), allOk: true }
  } finally {
    for (const key of keys) key?.dispose()
    for (const client of clients) client.dispose()
  }
}

/**
 * Throws ENGINE_FAILED unless every batch answer was served and decrypts, with its own
 * client, to its oracle's scores (no stray non-zero slot either).
 */
export function checkBatchAnswers(
  results: readonly SearchBatchResult[],
  clients: readonly PrivateSearchClient[],
  oracles: readonly ArrayLike<number>[],
  round: string,
): void {
  for (const [i, result] of results.entries()) {
    if (!result.ok) {
      throw new BenchError('ENGINE_FAILED', `batch ${round}: user ${i}'s query was refused: ${result.error.message}`, {
        cause: result.error,
      })
    }
    const decrypted = (clients[i] as PrivateSearchClient).decryptScores(result.evaluation.response)
    const oracle = oracles[i] as ArrayLike<number>
    const wrong = Array.from(oracle).findIndex((score, row) => decrypted.scores[row] !== score)
    if (wrong >= 0 || decrypted.strayNonZeroSlots !== 0) {
      throw new BenchError(
        'ENGINE_FAILED',
        `batch ${round}: user ${i}'s answer does not decrypt to the plaintext oracle (${wrong >= 0 ? `row ${wrong}` : `${decrypted.strayNonZeroSlots} stray slots`})`,
      )
    }
  }
}

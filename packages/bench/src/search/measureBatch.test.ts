import { EvaluationKeys, getHeContext } from '@sealbox/he-core'
import {
  PrivateSearchClient,
  PrivateSearchIndex,
  plaintextSearchScores,
  resolveSearchConfig,
  syntheticSearchDatabase,
  syntheticSearchQuery,
} from '@sealbox/he-core/search'
import { describe, expect, it } from 'vitest'
import { BenchError } from '../BenchError.ts'
import { checkBatchAnswers, measureBatch } from './measureBatch.ts'

describe('the batch benchmark', () => {
  it('serves each user with their own Galois keys and checks every answer against the oracle', async () => {
    const database = syntheticSearchDatabase({ rows: 300, dimension: 6, seed: 8 })
    // The default at this shape rotates on the server: every user needs their own keys.
    expect(resolveSearchConfig({ rows: 300, dimension: 6 }).galoisSteps.length).toBeGreaterThan(0)
    const measured = await measureBatch({ rows: 300, dimension: 6 }, database, 3, 2)
    expect(measured.allOk).toBe(true)
    expect(measured.perQuery.samples).toBe(3 * 2)
  })

  it('fails loudly on a refused query and on an answer that is not the oracle', async () => {
    const database = syntheticSearchDatabase({ rows: 300, dimension: 6, seed: 9 })
    const config = resolveSearchConfig({ rows: 300, dimension: 6 })
    const ctx = await getHeContext(config.params)
    using index = PrivateSearchIndex.process(ctx, database, config)
    using client = PrivateSearchClient.create(ctx, config)
    using keys = EvaluationKeys.load(ctx, client.evaluationKeys() as Uint8Array)
    const vector = syntheticSearchQuery(config.dimension, 1)
    const query = client.encryptQuery(vector)
    const oracle = plaintextSearchScores(config, database, vector)
    const failure = (run: () => void): BenchError => {
      try {
        run()
      } catch (error) {
        expect(error).toBeInstanceOf(BenchError)
        return error as BenchError
      }
      expect.unreachable('expected the check to throw')
    }
    checkBatchAnswers(index.evaluateBatch([{ query, keys }]), [client], [oracle], 'good')
    const refused = failure(() =>
      checkBatchAnswers(index.evaluateBatch([{ query, keys: null }]), [client], [oracle], 'r'),
    )
    expect(refused.code).toBe('ENGINE_FAILED')
    expect(refused.message).toMatch(/user 0's query was refused: .*Galois keys/)
    const wrongOracle = Float64Array.from(oracle, (score, row) => (row === 7 ? score + 1 : score))
    const wrong = failure(() => checkBatchAnswers(index.evaluateBatch([{ query, keys }]), [client], [wrongOracle], 'w'))
    expect(wrong.message).toMatch(/user 0's answer does not decrypt to the plaintext oracle \(row 7\)/)
  })
})

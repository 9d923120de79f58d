import { HeError } from '@sealbox/he-core'
import { describe, expect, it } from 'vitest'
import { checkSearchDatabase } from './checkSearchDatabase.ts'

const GiB = 2 ** 30
// 200,000 rows × D = 1024: 16 KiB a row processed, 3.1 GiB in all — more than one WASM heap holds.
const large = {
  database: { type: 'synthetic' as const, rows: 200_000, dim: 1024, seed: 1 },
  search: { scheme: 'bgv' as const, metric: 'cosine' as const },
  heapRecycleBytes: 3.5 * GiB,
}

describe('checkSearchDatabase with shards', () => {
  it('refuses the whole database above one heap, and admits each of 2 shards of it', async () => {
    const whole = await checkSearchDatabase(large).catch((error: unknown) => error)
    expect(whole).toBeInstanceOf(HeError)
    expect((whole as HeError).code).toBe('LIMIT_EXCEEDED')
    for (const index of [0, 1]) {
      const shard = await checkSearchDatabase({ ...large, shard: { index, count: 2 } })
      // Every shard plans the whole database's config; its workers hold about half of it.
      expect(shard.config.rows).toBe(200_000)
      expect(shard.processedBytes).toBeLessThan(2 * GiB)
      expect(shard.processedBytes).toBeGreaterThan(1.4 * GiB)
    }
  })

  it('refuses a shard that alone is above one heap, saying to use more shards', async () => {
    const error = await checkSearchDatabase({ ...large, shard: { index: 0, count: 1 } }).catch(
      (failure: unknown) => failure,
    )
    expect((error as HeError).code).toBe('LIMIT_EXCEEDED')
    expect((error as HeError).message).toContain('use more shards')
  })

  it('refuses more shards than the database has blocks', async () => {
    const small = { ...large, database: { type: 'synthetic' as const, rows: 300, dim: 16, seed: 1 } }
    const error = await checkSearchDatabase({ ...small, shard: { index: 0, count: 2 } }).catch(
      (failure: unknown) => failure,
    )
    expect((error as HeError).code).toBe('INVALID_INPUT')
    expect((error as HeError).message).toContain('at most 1 shards')
  })
})

import { HeError } from '@sealbox/he-core'
import { SEARCH_MAX_KERNEL_DIAGONAL_BYTES, SEARCH_MAX_PROCESSED_BYTES } from '@sealbox/he-core/search'
import { describe, expect, it } from 'vitest'
import { checkSearchDatabase } from './checkSearchDatabase.ts'

const GiB = 2 ** 30
const MiB = 2 ** 20
// 200,000 rows × D = 1024 under BFV (SEAL's evaluator: plaintexts in every worker's heap):
// 16 KiB a row processed, 3.1 GiB in all — more than one WASM heap holds.
const large = {
  database: { type: 'synthetic' as const, rows: 200_000, dim: 1024, seed: 1 },
  search: { scheme: 'bfv' as const, metric: 'cosine' as const },
  heapRecycleBytes: 3.5 * GiB,
}
const million = (rows: number, scheme: 'bgv' | 'bfv' = 'bgv') => ({
  database: { type: 'synthetic' as const, rows, dim: 384, seed: 1 },
  search: { scheme, metric: 'cosine' as const },
  heapRecycleBytes: 1024 * MiB,
})

function refusal(promise: Promise<unknown>): Promise<HeError> {
  return promise.then(
    () => {
      throw new HeError('INTERNAL', 'expected a refusal')
    },
    (error: unknown) => error as HeError,
  )
}

describe('checkSearchDatabase counts what is held', () => {
  it('V = 1,000,000 × D = 384 under BGV: 3.8 GiB of u32 residues in the shared diagonal memory, accepted', async () => {
    const checked = await checkSearchDatabase(million(1_000_000))
    expect(checked.memory.form).toBe('kernel')
    // 244 blocks of 512 diagonals and a folded one of 256, × 2 primes × n = 4096 × 4 bytes.
    expect(checked.memory.diagonals).toBe(244 * 512 + 256)
    expect(checked.processedBytes).toBe((244 * 512 + 256) * 2 * 4096 * 4)
    expect(checked.processedBytes).toBeLessThanOrEqual(SEARCH_MAX_KERNEL_DIAGONAL_BYTES)
    // Between the limits: SEAL's form of the same database is twice that, far above one heap's 2 GiB.
    expect(2 * checked.processedBytes).toBeGreaterThan(3 * SEARCH_MAX_PROCESSED_BYTES)
    // A worker's SEAL heap holds one plaintext of it at a time.
    expect(checked.memory.sealPeakBytes).toBe(2 * 4096 * 8)
  })

  it('V = 1,100,000 × D = 384: above the diagonal memory, refused with the numbers and the way out', async () => {
    const error = await refusal(checkSearchDatabase(million(1_100_000)))
    expect(error.code).toBe('LIMIT_EXCEEDED')
    expect(error.message).toBe(
      "DATABASE synthetic (SYNTHETIC_ROWS=1100000, SYNTHETIC_DIM=384) (V=1100000 rows × D=384, from its settings) is refused: rows: V=1100000 × D'=512 needs 4.2 GiB of u32 residues in the key-switching kernel's diagonal memory (one copy per node, shared by its worker threads; one per process under EXECUTOR=process); the limit is 3.9 GiB of its 4 GiB (one WebAssembly memory) (SEARCH_SHARD splits a database across nodes). Serve fewer rows (split the database across nodes) or a smaller dimension",
    )
    expect(error.details).toMatchObject({
      refused: 'database',
      form: 'kernel',
      limit: SEARCH_MAX_KERNEL_DIAGONAL_BYTES,
    })
  })

  it("V = 1,000,000 × D = 384 under BFV: SEAL's plaintexts in every worker's heap, refused at the old 2 GiB", async () => {
    const error = await refusal(checkSearchDatabase(million(1_000_000, 'bfv')))
    expect(error.code).toBe('LIMIT_EXCEEDED')
    expect(error.message).toContain(
      "rows: V=1000000 × D'=512 needs 7.6 GiB of NTT-form plaintexts in each worker's SEAL heap; the limit is 2.0 GiB of the 4 GiB WASM heap",
    )
    expect(error.details).toMatchObject({ refused: 'database', form: 'seal', limit: SEARCH_MAX_PROCESSED_BYTES })
  })

  it('streamed, a small recycle bound still refuses: the fresh heap and one plaintext must fit under it', async () => {
    const error = await refusal(checkSearchDatabase({ ...million(100_000), heapRecycleBytes: 64 * MiB }))
    expect(error.code).toBe('LIMIT_EXCEEDED')
    expect(error.details).toMatchObject({ setting: 'WORKER_HEAP_RECYCLE_BYTES', form: 'kernel' })
    expect(error.message).toContain(
      "of u32 residues in the key-switching kernel's diagonal memory (one copy per node, shared by its worker threads",
    )
    // The form says where the copy is: not in the SEAL heap, which holds one plaintext of it at a time.
    expect(error.message).toContain(
      "of which each worker's SEAL heap holds 1 MiB while processing (one plaintext at a time)",
    )
    expect(error.message).not.toContain('stays in each')
    expect(error.message).toContain('Raise WORKER_HEAP_RECYCLE_BYTES to at least 65 MiB')
  })
})

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

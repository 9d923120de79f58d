import { describe, expect, it } from 'vitest'
import { HeError } from '../errors/HeError.ts'
import { resolveSearchConfig } from './SearchConfig.ts'
import {
  SEARCH_MAX_KERNEL_DIAGONAL_BYTES,
  SEARCH_MAX_PROCESSED_BYTES,
  searchProcessedMemory,
} from './searchProcessedMemory.ts'

const unlimited = { maxProcessedBytes: Number.POSITIVE_INFINITY }

describe('searchProcessedMemory', () => {
  it('counts u32 residues where the key-switching kernel runs, SEAL plaintexts elsewhere', () => {
    const n = 4096
    const bgv = searchProcessedMemory(resolveSearchConfig({ rows: 1_000_000, dimension: 384 }))
    expect(bgv).toMatchObject({ form: 'kernel', limit: SEARCH_MAX_KERNEL_DIAGONAL_BYTES, diagonals: 244 * 512 + 256 })
    expect(bgv.bytes).toBe(bgv.diagonals * n * 4 * 2)
    // Streamed: one plaintext of it in SEAL's heap at a time.
    expect(bgv.sealPeakBytes).toBe(n * 8 * 2)
    const bfv = searchProcessedMemory(
      resolveSearchConfig({ rows: 1_000_000, dimension: 384, scheme: 'bfv' }, unlimited),
    )
    expect(bfv).toMatchObject({ form: 'seal', limit: SEARCH_MAX_PROCESSED_BYTES, diagonals: bgv.diagonals })
    expect(bfv.bytes).toBe(2 * bgv.bytes)
    expect(bfv.sealPeakBytes).toBe(bfv.bytes)
    // Coefficient form: one word per coefficient, SEAL's form whatever the scheme.
    const coeff = searchProcessedMemory(
      resolveSearchConfig({ rows: 1_000_000, dimension: 384, nttForm: false }, unlimited),
    )
    expect(coeff).toMatchObject({ form: 'seal', nttForm: false })
    expect(coeff.bytes).toBe(coeff.diagonals * n * 8)
  })

  it('counts a shard by its blocks, and the config refuses each form at its own limit', () => {
    const config = resolveSearchConfig({ rows: 1_000_000, dimension: 384 })
    const half = searchProcessedMemory(config, config.blocks.slice(0, 122))
    expect(half.diagonals).toBe(122 * 512)
    const refusal = (input: Parameters<typeof resolveSearchConfig>[0]) => {
      try {
        resolveSearchConfig(input)
      } catch (error) {
        return error as HeError
      }
      throw new HeError('INTERNAL', 'expected a refusal')
    }
    expect(refusal({ rows: 1_100_000, dimension: 384 }).details).toMatchObject({
      field: 'rows',
      form: 'kernel',
      limit: SEARCH_MAX_KERNEL_DIAGONAL_BYTES,
    })
    // Under BFV the old per-heap count: about 260,000 rows at D' = 512.
    expect(() => resolveSearchConfig({ rows: 260_000, dimension: 384, scheme: 'bfv' })).not.toThrow()
    expect(refusal({ rows: 280_000, dimension: 384, scheme: 'bfv' }).details).toMatchObject({
      form: 'seal',
      limit: SEARCH_MAX_PROCESSED_BYTES,
    })
  })
})

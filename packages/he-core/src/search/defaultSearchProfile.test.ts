import { describe, expect, it } from 'vitest'
import { plaintextSearchScores } from './plaintextSearchScores.ts'
import { resolveSearchConfig } from './SearchConfig.ts'
import {
  defaultSearchProfile,
  NOISE_FALLBACK_PROFILE,
  SEARCH_PARAMS_PROFILES,
  WIDE_PROFILE_FROM_PADDED_DIMENSION,
} from './searchParams.ts'
import { leavesResponseBudget, searchResponseNoiseBound } from './searchResponseDroppedBits.ts'
import { searchFixture, testDatabase } from './searchTestKit.ts'
import { syntheticSearchQuery } from './syntheticSearchDatabase.ts'

/*
 * The default parameters follow the dimension: `n4096` responses keep 3 bits of noise
 * budget up to D' = 256 but only 1–2 past it (one query a little noisier than the rest is
 * then refused as NOISE_BUDGET_EXHAUSTED), so from D' = 512 on the default is `n4096-wide`.
 * Below it, the plan's baby step g grows with the rows and every chained rotation adds noise:
 * where the response's noise bound leaves no bit of budget at `n4096`, the default is
 * `n4096-wide` too (V = 80,000, D = 256 kept 1–2 bits at `n4096`, and once none).
 */
describe('the default search profile', () => {
  it('is n4096 below D′ = 512 (same config ids as before) and n4096-wide from it', () => {
    expect(defaultSearchProfile(256)).toBe('n4096')
    expect(defaultSearchProfile(WIDE_PROFILE_FROM_PADDED_DIMENSION)).toBe('n4096-wide')
    const small = resolveSearchConfig({ dimension: 128, rows: 4096 })
    expect(small.configId).toBe(resolveSearchConfig({ dimension: 128, rows: 4096, params: 'n4096' }).configId)
    const large = resolveSearchConfig({ dimension: 768, rows: 4096 })
    expect(large.params.coeffModulusBits).toEqual([...SEARCH_PARAMS_PROFILES['n4096-wide'].coeffModulus])
    // A profile given explicitly is kept.
    expect(resolveSearchConfig({ dimension: 768, rows: 4096, params: 'n4096' }).params.coeffModulusBits).toEqual([
      27, 28, 28,
    ])
  })

  it("moves to n4096-wide wherever n4096's plan leaves a response no noise budget", () => {
    // A client's view (it processes nothing): every size resolves.
    const anySize = { maxProcessedBytes: Number.POSITIVE_INFINITY }
    const shapes: [number, number][] = []
    for (const dimension of [16, 64, 128, 256, 384, 768, 2048]) {
      for (const rows of [1000, 4096, 10_000, 30_000, 50_000, 80_000, 100_000, 300_000, 1_000_000]) {
        shapes.push([rows, dimension])
      }
    }
    let fellBack = 0
    for (const [rows, dimension] of shapes) {
      const config = resolveSearchConfig({ rows, dimension, link: 'broadband' }, anySize)
      expect(leavesResponseBudget(config), `V=${rows} D=${dimension}`).toBe(true)
      const atDefault = resolveSearchConfig(
        { rows, dimension, params: defaultSearchProfile(config.paddedDimension) },
        anySize,
      )
      if (leavesResponseBudget(atDefault)) {
        expect(config.configId, `V=${rows} D=${dimension}`).toBe(atDefault.configId)
      } else {
        fellBack++
        expect(config.params.coeffModulusBits).toEqual([...SEARCH_PARAMS_PROFILES[NOISE_FALLBACK_PROFILE].coeffModulus])
        expect(config.configId).toBe(
          resolveSearchConfig({ rows, dimension, params: NOISE_FALLBACK_PROFILE }, anySize).configId,
        )
      }
    }
    // The shape of the failure seen: 80,000 × 256 at n4096 plans g = 64, bound ≈ 869 > q/(4t) ≈ 512.
    const seen = resolveSearchConfig({ rows: 80_000, dimension: 256, params: 'n4096' })
    const q = 2 ** 27 - 1
    expect(seen.babyStep).toBe(64)
    const bound = searchResponseNoiseBound(
      { coeffPrimes: [BigInt(q), 2n ** 28n - 1n, 2n ** 28n - 1n], plainModulus: 65537n, params: seen.params },
      seen,
    )
    expect(bound).toBeGreaterThan(q / (4 * 65537))
    expect(resolveSearchConfig({ rows: 80_000, dimension: 256 }).params.coeffModulusBits).toEqual([30, 30, 31])
    expect(fellBack).toBeGreaterThan(0)
    // A profile given explicitly is kept, noise or not.
    expect(seen.params.coeffModulusBits).toEqual([27, 28, 28])
  })

  it('leaves at least 4 bits of noise budget at V = 20,000, D = 256, where n4096 would not', {
    timeout: 300_000,
  }, async () => {
    using fixture = await searchFixture({ dimension: 256, rows: 20_000, responseCompression: 'none' })
    expect(fixture.config.params.coeffModulusBits).toEqual([30, 30, 31])
    const database = testDatabase(fixture.config.rows, 256)
    for (const seed of [1, 2]) {
      const vector = syntheticSearchQuery(256, seed)
      const { response } = fixture.index.evaluate(fixture.client.encryptQuery(vector), fixture.keys)
      const decrypted = fixture.client.decryptScores(response)
      expect(decrypted.minNoiseBudget).toBeGreaterThanOrEqual(4)
      expect([...decrypted.scores]).toEqual([...plaintextSearchScores(fixture.config, database, vector)])
    }
  })

  for (const dimension of [768, 2048]) {
    // Before any low-order bit is dropped (`responseCompression: 'none'`): the packed default
    // spends all but one bit of it on a smaller response (searchResponseDroppedBits.test.ts).
    it(`leaves at least 4 bits of noise budget at D = ${dimension}, runs in the kernel and decrypts exactly`, {
      timeout: 300_000,
    }, async () => {
      using fixture = await searchFixture({ dimension, rows: 4096, responseCompression: 'none' })
      expect(fixture.index.kernel).toBe('keySwitch')
      const database = testDatabase(fixture.config.rows, dimension)
      for (const seed of [1, 2, 3]) {
        const vector = syntheticSearchQuery(dimension, seed)
        const { response } = fixture.index.evaluate(fixture.client.encryptQuery(vector), fixture.keys)
        const decrypted = fixture.client.decryptScores(response)
        expect(decrypted.minNoiseBudget).toBeGreaterThanOrEqual(4)
        expect([...decrypted.scores]).toEqual([...plaintextSearchScores(fixture.config, database, vector)])
      }
    })
  }
})

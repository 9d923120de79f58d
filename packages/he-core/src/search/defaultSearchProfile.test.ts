import { describe, expect, it } from 'vitest'
import { plaintextSearchScores } from './plaintextSearchScores.ts'
import { resolveSearchConfig } from './SearchConfig.ts'
import { defaultSearchProfile, SEARCH_PARAMS_PROFILES, WIDE_PROFILE_FROM_PADDED_DIMENSION } from './searchParams.ts'
import { searchFixture, testDatabase } from './searchTestKit.ts'
import { syntheticSearchQuery } from './syntheticSearchDatabase.ts'

/*
 * The default parameters follow the dimension: `n4096` responses keep 3 bits of noise
 * budget up to D' = 256 but only 1–2 past it (one query a little noisier than the rest is
 * then refused as NOISE_BUDGET_EXHAUSTED), so from D' = 512 on the default is `n4096-wide`.
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

import { describe, expect, it } from 'vitest'
import { HeError } from '../errors/HeError.ts'
import { sealExceptionCount } from '../errors/toHeError.ts'
import { PrivateSearchIndex } from './PrivateSearchIndex.ts'
import { plaintextSearchScores } from './plaintextSearchScores.ts'
import { searchFixture } from './searchTestKit.ts'
import { decodeSearchQuery, encodeSearchQuery } from './searchWire.ts'
import { syntheticSearchQuery } from './syntheticSearchDatabase.ts'

/** Client-side g = D' = 16 with uncompressed queries: the kernel's config, queries readable in place. */
const UNCOMPRESSED_DYADIC = {
  params: 'n4096',
  scheme: 'bgv',
  babySteps: 'client',
  babyStep: 16,
  dimension: 16,
  compression: 'none',
} as const

describe('the dyadic search kernel', () => {
  it('runs client-side g = D′ and answers byte for byte what SEAL answers', async () => {
    using fixture = await searchFixture({
      params: 'n4096',
      scheme: 'bgv',
      babySteps: 'client',
      babyStep: 16,
      compression: 'zstd',
      rows: 10_000,
      dimension: 16,
    })
    const { ctx, config, database, client, index } = fixture
    expect(index.kernel).toBe('dyadic')
    using sealIndex = PrivateSearchIndex.process(ctx, database, config, { kernel: 'seal' })
    expect(sealIndex.kernel).toBe('seal')
    for (const seed of [1, 2, 3]) {
      const vector = syntheticSearchQuery(config.dimension, seed)
      const query = client.encryptQuery(vector)
      const dyadic = index.evaluate(query, null)
      const seal = sealIndex.evaluate(query, null)
      expect(dyadic.response).toEqual(seal.response)
      expect(client.decryptScores(dyadic.response).scores).toEqual(plaintextSearchScores(config, database, vector))
    }
  })

  it('answers unseeded queries (seeded: false) too: about twice the bytes, the same exact scores', async () => {
    using fixture = await searchFixture({ ...UNCOMPRESSED_DYADIC, rows: 5000 })
    const { config, database, client, index } = fixture
    const vector = syntheticSearchQuery(config.dimension, 9)
    const seeded = client.encryptQuery(vector)
    const unseeded = client.encryptQuery(vector, { seeded: false })
    expect(unseeded.byteLength / seeded.byteLength).toBeGreaterThan(1.9)
    const oracle = plaintextSearchScores(config, database, vector)
    for (const query of [seeded, unseeded]) {
      expect(client.decryptScores(index.evaluate(query, null).response).scores).toEqual(oracle)
    }
  })

  it('refuses an unseeded query whose residues are not reduced, before any SEAL call, and stays usable', async () => {
    using fixture = await searchFixture({ ...UNCOMPRESSED_DYADIC, rows: 300 })
    const { ctx, config, client, index, database } = fixture
    const vector = syntheticSearchQuery(config.dimension, 4)
    const query = client.encryptQuery(vector, { seeded: false })
    const decoded = decodeSearchQuery(query, { fingerprint: ctx.fingerprint, configId: config.configId, count: 16 })
    const forged = decoded.items.map((item, i) => {
      const payload = item.payload.slice()
      // The last residue of item 5 set to 2^40: above every prime, still a well-framed SEAL save.
      if (i === 5) new DataView(payload.buffer).setBigUint64(payload.byteLength - 8, 1n << 40n, true)
      return { payload, seeded: false, level: ctx.topLevel }
    })
    const identity = { fingerprint: ctx.fingerprint, keySetId: decoded.keySetId, configId: config.configId }
    const before = sealExceptionCount()
    const error = (() => {
      try {
        index.evaluate(encodeSearchQuery(identity, forged), null)
      } catch (caught) {
        return caught
      }
      return undefined
    })()
    expect(error).toBeInstanceOf(HeError)
    expect((error as HeError).code).toBe('INVALID_ENVELOPE')
    expect((error as HeError).message).toMatch(/query ciphertext 5 has 1 coefficients at or above their prime/)
    // Refused by the kernel's check, not by SEAL (no C++ exception was thrown).
    expect(sealExceptionCount()).toBe(before)
    const scores = client.decryptScores(index.evaluate(query, null).response).scores
    expect(scores).toEqual(plaintextSearchScores(config, database, vector))
  })

  it('leaves rotations to the key-switching kernel, and BFV and primes of 2^32 or more to SEAL', async () => {
    const kernels = [
      [{ params: 'n4096', scheme: 'bgv', babySteps: 'server' }, 'keySwitch'],
      [{ params: 'n4096', scheme: 'bgv', babySteps: 'client', babyStep: 4 }, 'keySwitch'],
      [{ params: 'n4096', scheme: 'bfv', babySteps: 'client' }, 'seal'],
      [{ params: 'n8192', scheme: 'bgv', babySteps: 'client' }, 'seal'],
    ] as const
    for (const [input, kernel] of kernels) {
      using fixture = await searchFixture({ ...input, rows: 300, dimension: 16 })
      expect(fixture.index.kernel, JSON.stringify(input)).toBe(kernel)
    }
  })
})

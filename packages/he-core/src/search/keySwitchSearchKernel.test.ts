import { galoisKeyWordsBytes } from '@sealbox/he-ring'
import { describe, expect, it } from 'vitest'
import { HeError } from '../errors/HeError.ts'
import { sealExceptionCount } from '../errors/toHeError.ts'
import { EvaluationKeys } from '../keys/EvaluationKeys.ts'
import { exportGaloisKeys } from '../keys/exportKeys.ts'
import { KeySet } from '../keys/KeySet.ts'
import { measureHeap } from '../testing/measureHeap.ts'
import { PrivateSearchClient } from './PrivateSearchClient.ts'
import { PrivateSearchIndex } from './PrivateSearchIndex.ts'
import { plaintextSearchScores } from './plaintextSearchScores.ts'
import { searchFixture } from './searchTestKit.ts'
import { decodeSearchQuery, encodeSearchQuery } from './searchWire.ts'
import { syntheticSearchQuery } from './syntheticSearchDatabase.ts'

/** Search configs whose rotations run in the key-switching kernel (n4096 BGV, NTT form). */
const SHAPES = [
  // D not a power of two, V not a multiple of n: a full block and a folded one.
  { rows: 5000, dimension: 10, babySteps: 'server', babyStep: 4 },
  { rows: 5000, dimension: 10, babySteps: 'server', babyStep: 1 },
  { rows: 300, dimension: 3, babySteps: 'server', babyStep: 2 },
  { rows: 10_000, dimension: 16, babySteps: 'server', babyStep: 8 },
  // Client-side baby steps with giant rotations (D' beyond the upload cap).
  { rows: 1000, dimension: 64, babySteps: 'client', babyStep: 4 },
  // Apple's PNNS shape: one block of 128 unfolded diagonals.
  { rows: 4096, dimension: 128, babySteps: 'server', babyStep: 12 },
  // Hoisted baby steps: one decomposition of the query, a key per step 1 … g − 1.
  { rows: 5000, dimension: 10, babySteps: 'server', babyStep: 4, hoistBabySteps: true },
  { rows: 10_000, dimension: 16, babySteps: 'server', babyStep: 8, hoistBabySteps: true },
  { rows: 4096, dimension: 128, babySteps: 'server', babyStep: 12, hoistBabySteps: true },
] as const

describe('the key-switching search kernel', () => {
  for (const shape of SHAPES) {
    it(`answers exactly what SEAL answers, noise budget within a bit: ${JSON.stringify(shape)}`, async () => {
      using fixture = await searchFixture({ params: 'n4096', scheme: 'bgv', ...shape })
      const { ctx, config, database, client, index, keys } = fixture
      expect(index.kernel).toBe('keySwitch')
      using sealIndex = PrivateSearchIndex.process(ctx, database, config, { kernel: 'seal' })
      expect(sealIndex.kernel).toBe('seal')
      for (const seed of [1, 2]) {
        const vector = syntheticSearchQuery(config.dimension, seed)
        const query = client.encryptQuery(vector)
        const kernel = client.decryptScores(index.evaluate(query, keys).response)
        const seal = client.decryptScores(sealIndex.evaluate(query, keys).response)
        expect(kernel.scores).toEqual(plaintextSearchScores(config, database, vector))
        expect(kernel.scores).toEqual(seal.scores)
        expect(kernel.strayNonZeroSlots).toBe(0)
        expect(kernel.minNoiseBudget).toBeGreaterThanOrEqual(seal.minNoiseBudget - 1)
        expect(kernel.minNoiseBudget).toBeGreaterThan(0)
      }
    })
  }

  it('reads unseeded uncompressed queries in place and refuses unreduced words before any SEAL call', async () => {
    using fixture = await searchFixture({ rows: 300, dimension: 16, babySteps: 'server', compression: 'none' })
    const { ctx, config, database, client, index, keys } = fixture
    expect(index.kernel).toBe('keySwitch')
    const vector = syntheticSearchQuery(config.dimension, 6)
    const query = client.encryptQuery(vector, { seeded: false })
    const oracle = plaintextSearchScores(config, database, vector)
    expect(client.decryptScores(index.evaluate(query, keys).response).scores).toEqual(oracle)
    const decoded = decodeSearchQuery(query, { fingerprint: ctx.fingerprint, configId: config.configId, count: 1 })
    const identity = { fingerprint: ctx.fingerprint, keySetId: decoded.keySetId, configId: config.configId }
    for (const forged of [ctx.coeffPrimes[1] as bigint, 1n << 40n]) {
      const payload = (decoded.items[0] as (typeof decoded.items)[number]).payload.slice()
      new DataView(payload.buffer).setBigUint64(payload.byteLength - 8, forged, true)
      const before = sealExceptionCount()
      let error: unknown
      try {
        index.evaluate(encodeSearchQuery(identity, [{ payload, seeded: false, level: ctx.topLevel }]), keys)
      } catch (caught) {
        error = caught
      }
      expect(error).toBeInstanceOf(HeError)
      expect((error as HeError).code).toBe('INVALID_ENVELOPE')
      expect((error as HeError).message).toMatch(/query ciphertext 0 has 1 coefficients at or above their prime/)
      expect(sealExceptionCount()).toBe(before)
    }
    expect(client.decryptScores(index.evaluate(query, keys).response).scores).toEqual(oracle)
  })

  it("refuses another user's keys and keys without the steps, with coded errors, and stays usable", async () => {
    using fixture = await searchFixture({ rows: 300, dimension: 16, babySteps: 'server', babyStep: 4 })
    const { ctx, config, database, client, index, keys } = fixture
    expect(index.kernel).toBe('keySwitch')
    const vector = syntheticSearchQuery(config.dimension, 5)
    const query = client.encryptQuery(vector)
    using other = PrivateSearchClient.create(ctx, config)
    using othersKeys = EvaluationKeys.load(ctx, other.evaluationKeys() as Uint8Array)
    // The same key-set id without the giant step's key.
    using fewer = KeySet.generate(ctx, { id: client.keySet.id, galois: { steps: [1] } })
    using fewerKeys = EvaluationKeys.load(ctx, exportGaloisKeys(fewer, { seeded: true, compression: 'zstd' }))
    const before = sealExceptionCount()
    const failure = (run: () => unknown) => {
      try {
        run()
      } catch (error) {
        return error as HeError
      }
      expect.unreachable('expected a refusal')
    }
    expect(failure(() => index.evaluate(query, othersKeys))).toBeInstanceOf(HeError)
    expect(failure(() => index.evaluate(query, othersKeys)).code).toBe('KEY_SET_MISMATCH')
    expect(failure(() => index.evaluate(query, fewerKeys)).code).toBe('MISSING_KEY')
    expect(failure(() => index.evaluate(query, null)).code).toBe('MISSING_KEY')
    expect(sealExceptionCount()).toBe(before)
    const scores = client.decryptScores(index.evaluate(query, keys).response).scores
    expect(scores).toEqual(plaintextSearchScores(config, database, vector))
  })

  // A thousand queries on a shared 2-core machine: a deadline of minutes, not a timing.
  for (const hoistBabySteps of [false, true]) {
    it(`stays flat over 1,000 queries from 32 users' keys (SEAL's heap and handles, the kernel's own memory); key words are counted in the keys' cache bytes${hoistBabySteps ? ' (hoisted baby steps: a key per step)' : ''}`, {
      timeout: 300_000,
    }, async () => {
      using fixture = await searchFixture({
        rows: 300,
        dimension: 16,
        babySteps: 'server',
        babyStep: 4,
        hoistBabySteps,
      })
      expect(fixture.config.galoisSteps).toEqual(hoistBabySteps ? [1, 2, 3, 4] : [1, 4])
      const { ctx, config, database, index } = fixture
      const clients = Array.from({ length: 32 }, () => PrivateSearchClient.create(ctx, config))
      const users = clients.map((client, i) => {
        const vector = syntheticSearchQuery(config.dimension, 10 + i)
        const keys = EvaluationKeys.load(ctx, client.evaluationKeys() as Uint8Array)
        return { client, keys, vector, query: client.encryptQuery(vector) }
      })
      // The worker key cache's budget unit: SEAL's keys plus the kernel's u32 words (192 KiB per step here).
      const steps = config.galoisSteps.length
      const words = galoisKeyWordsBytes(config.polyModulusDegree, ctx.coeffPrimes.length)
      expect(words).toBe(2 * 2 * 3 * 4096 * 4)
      expect(users[0]?.keys.heapBytes).toBe(steps * (ctx.facts.sizes.galoisKeyPerStep + words))
      try {
        let round = 0
        const roundTrip = () => {
          const user = users[round++ % users.length] as (typeof users)[number]
          const { response } = index.evaluate(user.query, user.keys)
          const scores = user.client.decryptScores(response).scores
          if (round <= users.length) expect(scores).toEqual(plaintextSearchScores(config, database, user.vector))
        }
        // The kernel's own memory (diagonals, tables, scratch, one user's key words) is
        // reserved when the index is processed: no query and no new user's keys grow it.
        const kernelBefore = index.heapBytes
        expect(kernelBefore).toBeGreaterThan(0)
        // Each key set makes its encryptor and decryptor on first use: long-lived, not per query.
        for (const _ of users) roundTrip()
        const report = measureHeap(roundTrip, { warmup: 32, iterations: 1000 })
        expect(report.handlesAfter).toBe(report.handlesBefore)
        expect(report.heapAfter).toBe(report.heapAfterWarmup)
        expect(index.heapBytes).toBe(kernelBefore)
      } finally {
        for (const user of users) {
          user.keys.dispose()
          user.client.dispose()
        }
      }
    })
  }
})

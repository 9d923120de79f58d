import { describe, expect, it } from 'vitest'
import { EvaluationKeys } from '../keys/EvaluationKeys.ts'
import { liveSealHandles } from '../scope/SealScope.ts'
import { wasmHeapBytes } from '../seal/loadSeal.ts'
import { measureHeap } from '../testing/measureHeap.ts'
import { PrivateSearchClient } from './PrivateSearchClient.ts'
import { PrivateSearchIndex } from './PrivateSearchIndex.ts'
import { searchFixture } from './searchTestKit.ts'
import { syntheticSearchQuery } from './syntheticSearchDatabase.ts'

describe('private search memory', () => {
  it('stays flat over hundreds of queries, client- and server-side baby steps, compressed or not', async () => {
    for (const [input, seeded] of [
      [{ rows: 100, dimension: 3 }, true],
      [{ rows: 100, dimension: 3, babySteps: 'server', babyStep: 2 }, true],
      // Uncompressed queries and responses take other load and save paths…
      [{ rows: 100, dimension: 3, compression: 'none', responseCompression: 'none' }, true],
      // …and unseeded uncompressed ones skip SEAL's load (the dyadic kernel reads them in place).
      [{ rows: 100, dimension: 3, compression: 'none', responseCompression: 'none' }, false],
    ] as const) {
      using fixture = await searchFixture(input)
      const q = syntheticSearchQuery(3, 2)
      const roundTrip = () => {
        const { response } = fixture.index.evaluate(fixture.client.encryptQuery(q, { seeded }), fixture.keys)
        fixture.client.rank(response, 5)
      }
      // The kernel's own memory (outside SEAL's heap) is reserved at processing time.
      const kernelBytes = fixture.index.heapBytes
      expect(kernelBytes).toBeGreaterThan(0)
      // The key set makes its encryptor and decryptor on first use: long-lived, not per query.
      roundTrip()
      const report = measureHeap(roundTrip, { warmup: 10, iterations: 200 })
      expect(report.handlesAfter).toBe(report.handlesBefore)
      expect(report.heapAfter).toBe(report.heapAfterWarmup)
      expect(fixture.index.heapBytes).toBe(kernelBytes)
    }
    // Under SEAL's evaluator the diagonals are SEAL plaintexts: the index holds no memory of its own.
    using fixture = await searchFixture({ rows: 100, dimension: 3 })
    using sealIndex = PrivateSearchIndex.process(fixture.ctx, fixture.database, fixture.config, { kernel: 'seal' })
    expect(sealIndex.heapBytes).toBe(0)
  })

  it('stays flat over repeated queries of the benchmark shape (V=10000, D=16)', async () => {
    using fixture = await searchFixture({ rows: 10_000, dimension: 16, babySteps: 'client', babyStep: 16 })
    const query = fixture.client.encryptQuery(syntheticSearchQuery(16, 3))
    fixture.client.decryptScores(fixture.index.evaluate(query, null).response)
    const report = measureHeap(
      () => {
        const { response } = fixture.index.evaluate(query, null)
        fixture.client.decryptScores(response)
      },
      { warmup: 5, iterations: 40 },
    )
    expect(report.handlesAfter).toBe(report.handlesBefore)
    expect(report.heapAfter).toBe(report.heapAfterWarmup)
  })

  it('frees everything it owns: index, client, uploaded keys', async () => {
    using fixture = await searchFixture({ rows: 100, dimension: 3, babySteps: 'server', babyStep: 2 })
    const keyBytes = fixture.client.evaluationKeys() as Uint8Array
    const baseline = liveSealHandles()
    const report = measureHeap(
      () => {
        using index = PrivateSearchIndex.process(fixture.ctx, fixture.database, fixture.config)
        using client = PrivateSearchClient.create(fixture.ctx, fixture.config)
        using keys = EvaluationKeys.load(fixture.ctx, keyBytes)
        expect(index.processing.plaintexts).toBe(2)
        expect(keys.galoisElements.length).toBe(1)
        expect(client.keySet.galoisSteps).toEqual([1])
      },
      { warmup: 5, iterations: 60 },
    )
    expect(report.handlesAfter).toBe(baseline)
    expect(report.heapAfter).toBe(report.heapAfterWarmup)
    expect(wasmHeapBytes()).toBeGreaterThan(0)
  })
})

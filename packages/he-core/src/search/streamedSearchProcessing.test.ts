import { describe, expect, it } from 'vitest'
import { EvaluationKeys } from '../keys/EvaluationKeys.ts'
import { getHeContext } from '../params/ContextCache.ts'
import { liveSealHandles } from '../scope/SealScope.ts'
import { wasmHeapBytes } from '../seal/loadSeal.ts'
import { PrivateSearchClient } from './PrivateSearchClient.ts'
import { PrivateSearchIndex } from './PrivateSearchIndex.ts'
import { plaintextSearchScores } from './plaintextSearchScores.ts'
import { resolveSearchConfig } from './SearchConfig.ts'
import { searchRowSourceOf } from './SearchRowSource.ts'
import { searchProcessedMemory } from './searchProcessedMemory.ts'
import { syntheticSearchDatabase, syntheticSearchQuery } from './syntheticSearchDatabase.ts'

const MiB = 2 ** 20

describe('processing streamed into the key-switching kernel', () => {
  it("never holds the database in SEAL's heap: it grows by far less than SEAL's form, and every score is exact", async () => {
    // 20 blocks of 256 diagonals: 320 MiB as SEAL plaintexts, 160 MiB as the kernel's u32 residues.
    const config = resolveSearchConfig({ rows: 80_000, dimension: 256 })
    const memory = searchProcessedMemory(config)
    expect(memory.form).toBe('kernel')
    const sealBytes = memory.diagonals * config.polyModulusDegree * 8 * 2
    expect(sealBytes).toBe(2 * memory.bytes)
    const ctx = await getHeContext(config.params)
    const database = syntheticSearchDatabase({ rows: config.rows, dimension: config.dimension, seed: 5 })
    const handles = liveSealHandles()
    const heapBefore = wasmHeapBytes() ?? 0
    let heapPeak = heapBefore
    using index = PrivateSearchIndex.process(ctx, searchRowSourceOf(database), config, {
      // SEAL's heap never shrinks: its size after each block is the peak so far.
      onProgress: () => {
        heapPeak = Math.max(heapPeak, wasmHeapBytes() ?? 0)
      },
    })
    const growth = (wasmHeapBytes() ?? 0) - heapBefore
    expect(index.kernel).toBe('keySwitch')
    expect(index.processing).toMatchObject({ form: 'kernel', bytes: memory.bytes, plaintexts: memory.diagonals })
    expect(index.diagonals?.bytes).toBeGreaterThanOrEqual(memory.bytes)
    // One plaintext at a time (64 KiB): the heap's own growth steps are the only slack.
    expect(growth, `SEAL heap grew ${(growth / MiB).toFixed(1)} MiB`).toBeLessThan(sealBytes / 8)
    expect(heapPeak - heapBefore).toBe(growth)
    expect(liveSealHandles()).toBe(handles)
    using client = PrivateSearchClient.create(ctx, config, { catalog: { ids: database.ids } })
    const keyBytes = client.evaluationKeys()
    using keys = keyBytes === null ? null : EvaluationKeys.load(ctx, keyBytes)
    const vector = syntheticSearchQuery(config.dimension, 3)
    const scores = client.decryptScores(index.evaluate(client.encryptQuery(vector), keys).response).scores
    expect(scores).toEqual(plaintextSearchScores(config, database, vector))
  })
})

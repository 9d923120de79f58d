import { describe, expect, it } from 'vitest'
import { EvaluationKeys } from '../keys/EvaluationKeys.ts'
import { getHeContext } from '../params/ContextCache.ts'
import { PrivateSearchClient } from './PrivateSearchClient.ts'
import { PrivateSearchIndex } from './PrivateSearchIndex.ts'
import { plaintextSearchScores } from './plaintextSearchScores.ts'
import type { SearchBlockCache, SearchProcessingProgress } from './SearchBlockCache.ts'
import { resolveSearchConfig } from './SearchConfig.ts'
import type { SearchConfigInput } from './SearchConfigInput.ts'
import { searchRowSourceOf } from './SearchRowSource.ts'
import type { SearchBlock } from './searchLayout.ts'
import { testDatabase } from './searchTestKit.ts'
import { syntheticSearchQuery } from './syntheticSearchDatabase.ts'

/** A cache in memory: what a server keeps in a file, with every read and write counted. */
class MemoryBlockCache implements SearchBlockCache {
  readonly blocks = new Map<number, Uint8Array[]>()
  reads = 0
  writes: { index: number; fromCache: boolean }[] = []
  /** Serve every block from a byte offset inside a larger buffer, as a file reader's slices are. */
  offsetSlices = true
  /** That offset: unaligned by default; a multiple of 4 as the server's file reader gives. */
  offset = 13

  read(block: SearchBlock): readonly Uint8Array[] | undefined {
    this.reads++
    const saves = this.blocks.get(block.index)
    if (!saves || !this.offsetSlices) return saves
    return saves.map((save) => {
      const padded = new Uint8Array(save.byteLength + this.offset)
      padded.set(save, this.offset)
      return padded.subarray(this.offset)
    })
  }

  write(block: SearchBlock, saves: readonly Uint8Array[], fromCache: boolean): void {
    this.writes.push({ index: block.index, fromCache })
    if (!fromCache)
      this.blocks.set(
        block.index,
        saves.map((save) => save.slice()),
      )
  }
}

async function exactScores(input: SearchConfigInput, cache: SearchBlockCache | undefined, fromRows: boolean) {
  const config = resolveSearchConfig(input)
  const ctx = await getHeContext(config.params)
  const database = testDatabase(config.rows, config.dimension)
  const progress: SearchProcessingProgress[] = []
  using index = PrivateSearchIndex.process(ctx, fromRows ? searchRowSourceOf(database) : database, config, {
    ...(cache ? { cache } : {}),
    onProgress: (p) => progress.push(p),
  })
  using client = PrivateSearchClient.create(ctx, config, { catalog: { ids: database.ids } })
  const keyBytes = client.evaluationKeys()
  const keys = keyBytes === null ? null : EvaluationKeys.load(ctx, keyBytes)
  try {
    const query = syntheticSearchQuery(config.dimension, 11)
    const result = client.decryptScores(index.evaluate(client.encryptQuery(query), keys).response)
    const oracle = plaintextSearchScores(config, database, query)
    return { config, index: index.processing, progress, exact: oracle.every((s, row) => result.scores[row] === s) }
  } finally {
    keys?.dispose()
  }
}

describe('processing with a block cache', () => {
  // Three blocks (two full, one folded) under both kernels and SEAL's evaluator.
  const inputs: [string, SearchConfigInput][] = [
    ['dyadic kernel', { rows: 9000, dimension: 16, babySteps: 'client', babyStep: 16 }],
    ['key-switching kernel', { rows: 9000, dimension: 16, babySteps: 'server', babyStep: 4 }],
    [
      'SEAL evaluator (coefficient form)',
      { rows: 9000, dimension: 16, babySteps: 'server', babyStep: 4, nttForm: false },
    ],
  ]
  for (const [name, input] of inputs) {
    it(`${name}: a second processing reads every block back, and both answer the plaintext oracle exactly`, async () => {
      const cache = new MemoryBlockCache()
      const first = await exactScores(input, cache, true)
      expect(first.exact).toBe(true)
      expect(first.index.cachedBlocks).toBe(0)
      expect(cache.writes).toEqual(first.config.blocks.map((b) => ({ index: b.index, fromCache: false })))
      expect(first.progress.map((p) => p.blocksDone)).toEqual([1, 2, 3])
      cache.writes = []
      const second = await exactScores(input, cache, false)
      expect(second.exact).toBe(true)
      expect(second.index.cachedBlocks).toBe(3)
      expect(second.progress.at(-1)).toMatchObject({ blocksDone: 3, blocks: 3, fromCache: 3 })
      expect(cache.writes.every((w) => w.fromCache)).toBe(true)
    })
  }

  it('processes a block again when its cached plaintexts do not load, and hands the fresh ones to the cache', async () => {
    const input: SearchConfigInput = { rows: 9000, dimension: 16, babySteps: 'client', babyStep: 16 }
    const cache = new MemoryBlockCache()
    await exactScores(input, cache, true)
    // Block 1's first plaintext cut short (checksums are the file's business; SEAL's load catches this).
    const saves = cache.blocks.get(1) as Uint8Array[]
    saves[0] = (saves[0] as Uint8Array).subarray(0, 100)
    // Another database's blocks under the same config: the wrong count of diagonals for block 2.
    cache.blocks.set(2, (cache.blocks.get(2) as Uint8Array[]).slice(1))
    cache.writes = []
    const again = await exactScores(input, cache, true)
    expect(again.exact).toBe(true)
    expect(again.index.cachedBlocks).toBe(1)
    expect(cache.writes).toEqual([
      { index: 0, fromCache: true },
      { index: 1, fromCache: false },
      { index: 2, fromCache: false },
    ])
  })

  it("keeps the key-switching kernel's form (u32 residues), and encodes a block again when a residue is not below its prime", async () => {
    const input: SearchConfigInput = { rows: 9000, dimension: 16, babySteps: 'server', babyStep: 4 }
    const cache = new MemoryBlockCache()
    const first = await exactScores(input, cache, true)
    expect(first.index.form).toBe('kernel')
    const n = first.config.polyModulusDegree
    // L × n u32 words a diagonal: half of SEAL's save of it.
    const saves = cache.blocks.get(1) as Uint8Array[]
    expect(saves.every((save) => save.byteLength === 2 * n * 4)).toBe(true)
    new DataView((saves[3] as Uint8Array).buffer).setUint32(4 * (n + 7), 0xffff_fff0, true)
    cache.writes = []
    const again = await exactScores(input, cache, true)
    expect(again.exact).toBe(true)
    expect(again.index.cachedBlocks).toBe(2)
    expect(cache.writes).toEqual([
      { index: 0, fromCache: true },
      { index: 1, fromCache: false },
      { index: 2, fromCache: true },
    ])
  })

  it('checks residues in place when the cache gives 4-byte aligned views (a server read buffer)', async () => {
    const input: SearchConfigInput = { rows: 9000, dimension: 16, babySteps: 'server', babyStep: 4 }
    const cache = new MemoryBlockCache()
    cache.offset = 16
    await exactScores(input, cache, true)
    const again = await exactScores(input, cache, true)
    expect(again.exact).toBe(true)
    expect(again.index.cachedBlocks).toBe(3)
    // A residue equal to its prime in the first prime's run of block 2's last diagonal.
    const saves = cache.blocks.get(2) as Uint8Array[]
    const last = saves.at(-1) as Uint8Array
    const ctx = await getHeContext(again.config.params)
    new DataView(last.buffer).setUint32(4 * 9, Number(ctx.coeffPrimes[0]), true)
    cache.writes = []
    const rebuilt = await exactScores(input, cache, true)
    expect(rebuilt.exact).toBe(true)
    expect(rebuilt.index.cachedBlocks).toBe(2)
    expect(cache.writes.at(-1)).toEqual({ index: 2, fromCache: false })
  })

  it('refuses NTT-form blocks for a coefficient-form config (the form is checked, not assumed)', async () => {
    const ntt: SearchConfigInput = { rows: 5000, dimension: 8, babySteps: 'server', babyStep: 2 }
    const cache = new MemoryBlockCache()
    await exactScores(ntt, cache, true)
    cache.writes = []
    const coeff = await exactScores({ ...ntt, nttForm: false }, cache, true)
    expect(coeff.exact).toBe(true)
    expect(coeff.index.cachedBlocks).toBe(0)
  })
})

import { DiagonalMemory } from '@sealbox/he-ring'
import { describe, expect, it } from 'vitest'
import { HeError } from '../errors/HeError.ts'
import { PrivateSearchIndex } from './PrivateSearchIndex.ts'
import { plaintextSearchScores } from './plaintextSearchScores.ts'
import { searchFixture } from './searchTestKit.ts'
import { syntheticSearchQuery } from './syntheticSearchDatabase.ts'

describe('an index over shared diagonals', () => {
  it('processes once into a shared memory; an attached index answers exactly without a copy of its own', async () => {
    using fixture = await searchFixture({
      params: 'n4096',
      scheme: 'bgv',
      rows: 5000,
      dimension: 10,
      babySteps: 'server',
      babyStep: 4,
    })
    const { ctx, config, database, client, index, keys } = fixture
    const diagonals = DiagonalMemory.create({ shared: true })
    expect(diagonals.claim(1)).toBe(true)
    using built = PrivateSearchIndex.process(ctx, database, config, { diagonals })
    expect(diagonals.state).toBe('ready')
    expect(built.kernel).toBe('keySwitch')
    using attached = PrivateSearchIndex.attach(ctx, config, diagonals)
    expect(attached.kernel).toBe('keySwitch')
    expect(attached.blocks).toEqual(built.blocks)
    expect(attached.processing).toEqual(built.processing)
    // One copy: both read the same memory, which holds every diagonal (u32: half of SEAL's bytes).
    expect(built.diagonals).toEqual({ bytes: diagonals.bytes, shared: true })
    expect(attached.diagonals).toEqual(built.diagonals)
    expect(diagonals.bytes).toBeGreaterThanOrEqual(built.processing.bytes / 2)
    // Each kernel's own heap holds no diagonal: the same as an index's with its own copy.
    expect(attached.heapBytes).toBe(index.heapBytes)
    for (const seed of [1, 2]) {
      const vector = syntheticSearchQuery(config.dimension, seed)
      const oracle = plaintextSearchScores(config, database, vector)
      const query = client.encryptQuery(vector)
      expect(client.decryptScores(attached.evaluate(query, keys).response).scores).toEqual(oracle)
      expect(client.decryptScores(built.evaluate(query, keys).response).scores).toEqual(oracle)
      const split = attached.evaluate(query, keys, { blocks: { start: 1, end: 2 } })
      expect(split.blocks).toEqual([1])
    }
  })

  it('publishes "unused" when the search does not run in the key-switching kernel', async () => {
    using fixture = await searchFixture({ params: 'n4096', scheme: 'bgv', rows: 300, dimension: 3, babyStep: 2 })
    const { ctx, config, database } = fixture
    const diagonals = DiagonalMemory.create({ shared: true })
    diagonals.claim(1)
    using sealIndex = PrivateSearchIndex.process(ctx, database, config, { kernel: 'seal', diagonals })
    expect(sealIndex.kernel).toBe('seal')
    expect(diagonals.state).toBe('unused')
    expect(sealIndex.diagonals).toBeUndefined()
  })

  it('refuses to attach to diagonals of another config, or to a memory nobody published', async () => {
    using small = await searchFixture({
      params: 'n4096',
      scheme: 'bgv',
      rows: 300,
      dimension: 3,
      babySteps: 'server',
      babyStep: 2,
    })
    using other = await searchFixture({
      params: 'n4096',
      scheme: 'bgv',
      rows: 600,
      dimension: 3,
      babySteps: 'server',
      babyStep: 2,
    })
    const diagonals = DiagonalMemory.create({ shared: true })
    expect(() => PrivateSearchIndex.attach(small.ctx, small.config, diagonals)).toThrow(HeError)
    diagonals.claim(1)
    using built = PrivateSearchIndex.process(small.ctx, small.database, small.config, { diagonals })
    expect(built.kernel).toBe('keySwitch')
    let error: unknown
    try {
      PrivateSearchIndex.attach(other.ctx, other.config, diagonals)
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(HeError)
    expect((error as HeError).code).toBe('INVALID_INPUT')
    expect((error as HeError).message).toMatch(/processed for config/)
  })
})

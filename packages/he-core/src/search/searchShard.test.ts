import { describe, expect, it } from 'vitest'
import { HeError } from '../errors/HeError.ts'
import { resolveSearchConfig } from './SearchConfig.ts'
import { parseSearchShard, searchShardOf } from './searchShard.ts'

describe('search shards', () => {
  it('reads i/S and refuses anything else with a coded error', () => {
    expect(parseSearchShard('1/4')).toEqual({ index: 1, count: 4 })
    for (const text of ['4/4', '0/0', '1', 'a/b', '-1/2', '1/2/3']) {
      expect(() => parseSearchShard(text)).toThrow(HeError)
    }
  })

  it('splits the blocks into contiguous row ranges that cover the database once', () => {
    // 5 blocks of n = 4096 rows, the last one short.
    const config = resolveSearchConfig({ dimension: 16, rows: 4 * 4096 + 100 })
    expect(config.blocks).toHaveLength(5)
    for (const count of [1, 2, 3, 5]) {
      const shards = Array.from({ length: count }, (_, index) => searchShardOf(config, { index, count }))
      let row = 0
      let block = 0
      for (const shard of shards) {
        expect(shard.rows.start).toBe(row)
        expect(shard.blocks.start).toBe(block)
        expect(shard.blocks.end).toBeGreaterThan(shard.blocks.start)
        row = shard.rows.end
        block = shard.blocks.end
      }
      expect(row).toBe(config.rows)
      expect(block).toBe(config.blocks.length)
    }
    expect(searchShardOf(config, { index: 1, count: 2 })).toEqual({
      index: 1,
      count: 2,
      blocks: { start: 2, end: 5 },
      rows: { start: 8192, end: config.rows },
    })
  })

  it('refuses more shards than blocks', () => {
    const config = resolveSearchConfig({ dimension: 16, rows: 300 })
    const error = (() => {
      try {
        searchShardOf(config, { index: 0, count: 2 })
      } catch (failure) {
        return failure as HeError
      }
      return undefined
    })()
    expect(error?.code).toBe('INVALID_INPUT')
    expect(error?.message).toContain('at most 1 shards')
  })
})

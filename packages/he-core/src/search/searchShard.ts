import { z } from 'zod'
import { HeError } from '../errors/HeError.ts'
import type { SearchBlockRange } from './processSearchDatabase.ts'
import type { SearchConfig } from './SearchConfig.ts'

/** Which of S shards of a database a node serves: `SEARCH_SHARD=i/S`. */
export interface SearchShardChoice {
  index: number
  count: number
}

/**
 * One shard of a sharded database, as its node serves it (in its search config): shard
 * `index` of `count`, the blocks of the whole database's config it holds and the rows
 * they cover. Rows keep their global numbers and ids: the client merges shards' answers
 * into one response for the whole database's config.
 */
export const SearchShardSchema = z
  .object({
    index: z.number().int().nonnegative(),
    count: z.number().int().positive(),
    blocks: z.object({ start: z.number().int().nonnegative(), end: z.number().int().positive() }).strict(),
    rows: z.object({ start: z.number().int().nonnegative(), end: z.number().int().positive() }).strict(),
  })
  .strict()
export type SearchShard = z.infer<typeof SearchShardSchema>

/** `i/S` (SEARCH_SHARD, --search-shard) read, or INVALID_INPUT saying what to write. */
export function parseSearchShard(text: string): SearchShardChoice {
  const match = /^(\d{1,4})\/(\d{1,4})$/.exec(text.trim())
  const index = Number(match?.[1])
  const count = Number(match?.[2])
  if (!match || count < 1 || index >= count) {
    throw new HeError('INVALID_INPUT', `search shard "${text}": expected i/S with 0 ≤ i < S, e.g. 0/2`)
  }
  return { index, count }
}

/**
 * The rule that splits a database into S shards: the whole database's config is planned
 * once (every shard agrees on it and its config id), and shard i holds the contiguous
 * blocks ⌊i·B/S⌋ … ⌊(i+1)·B/S⌋ − 1 of its B blocks (n rows each): contiguous row
 * ranges, in order. INVALID_INPUT when a shard would hold no block (S above B).
 */
export function searchShardOf(config: SearchConfig, choice: SearchShardChoice): SearchShard {
  const blockCount = config.blocks.length
  if (choice.count > blockCount) {
    throw new HeError(
      'INVALID_INPUT',
      `search shard ${choice.index}/${choice.count}: the database has ${blockCount} block(s) of up to ${config.polyModulusDegree} rows, so at most ${blockCount} shards; use fewer shards`,
    )
  }
  const blocks: SearchBlockRange = {
    start: Math.floor((choice.index * blockCount) / choice.count),
    end: Math.floor(((choice.index + 1) * blockCount) / choice.count),
  }
  const first = config.blocks[blocks.start]
  const last = config.blocks[blocks.end - 1]
  if (!first || !last)
    throw new HeError('INTERNAL', `shard blocks [${blocks.start}, ${blocks.end}) are not in the config`)
  return { ...choice, blocks, rows: { start: first.firstRow, end: last.firstRow + last.rows } }
}

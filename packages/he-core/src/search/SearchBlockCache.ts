import type { SearchBlock } from './searchLayout.ts'

/**
 * Where processed blocks are kept between runs (a server keeps them in a file under
 * its data directory). Processing asks for each block before encoding it, and hands
 * every block — read or encoded — to `write`, in block order, so a cache that found
 * itself damaged half-way can rewrite itself whole.
 */
export interface SearchBlockCache {
  /**
   * The block's plaintexts as SEAL saves them (uncompressed, one per diagonal, giant
   * step by giant step), or undefined to have the block processed. The cache has
   * checked them (checksums) and refuses what it did not write for this database and
   * config. The arrays may be views of a buffer the cache reuses: valid until its next
   * `read`.
   */
  read(block: SearchBlock): readonly Uint8Array[] | undefined
  /** A block's plaintexts, saved uncompressed; `fromCache` when `read` gave them. */
  write(block: SearchBlock, saves: readonly Uint8Array[], fromCache: boolean): void
}

/** How far processing is, reported after each block. */
export interface SearchProcessingProgress {
  blocksDone: number
  blocks: number
  /** Blocks of `blocksDone` that came from the cache. */
  fromCache: number
  /** Since processing started. */
  milliseconds: number
}

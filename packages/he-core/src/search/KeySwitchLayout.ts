import { HeError } from '../errors/HeError.ts'

/** Where a `KeySwitchSearch`'s diagonals are in its diagonal memory (`layout`, `attach`). */
export interface KeySwitchLayout {
  configId: string
  /** u32 words of one diagonal (L × n): the diagonals of a block follow each other. */
  plainWords: number
  /** Per block: its first diagonal's byte offset and the diagonals of each giant step. */
  blocks: { index: number; start: number; rows: number[] }[]
  /** The first bytes of SEAL's save of a diagonal (empty: queries always go through SEAL's load). */
  plaintextHeader: number[]
}

/**
 * The layout of blocks whose diagonals were placed contiguously (`rows`: per block, per
 * giant step, byte offsets of `plainWords`-word diagonals): plain JSON, for `attach`.
 */
export function keySwitchLayoutOf(options: {
  configId: string
  plainWords: number
  rows: ReadonlyMap<number, readonly (readonly number[])[]>
  plaintextHeader: Uint8Array | undefined
}): KeySwitchLayout {
  const stride = options.plainWords * 4
  for (const [index, rows] of options.rows) {
    const start = rows[0]?.[0] ?? 0
    if (!rows.flat().every((at, k) => at === start + k * stride)) {
      throw new HeError('INTERNAL', `block ${index}'s diagonals are not contiguous in the diagonal memory`)
    }
  }
  return {
    configId: options.configId,
    plainWords: options.plainWords,
    blocks: [...options.rows].map(([index, rows]) => ({
      index,
      start: rows[0]?.[0] ?? 0,
      rows: rows.map((row) => row.length),
    })),
    plaintextHeader: options.plaintextHeader ? [...options.plaintextHeader] : [],
  }
}

/**
 * Per block of `layout`, per giant step, the byte offsets of its diagonals in a diagonal
 * memory of `bytes` bytes; INVALID_INPUT for a block that runs past them.
 */
export function keySwitchLayoutRows(layout: KeySwitchLayout, bytes: number): Map<number, number[][]> {
  const stride = layout.plainWords * 4
  const blocks = new Map<number, number[][]>()
  for (const { index, start, rows } of layout.blocks) {
    let at = start
    const offsets = rows.map((count) =>
      Array.from({ length: count }, () => {
        const here = at
        at += stride
        return here
      }),
    )
    if (at > bytes) throw new HeError('INVALID_INPUT', `block ${index} of the shared diagonals runs past their end`)
    blocks.set(index, offsets)
  }
  return blocks
}

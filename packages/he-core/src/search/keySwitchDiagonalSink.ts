import { narrowResidues, type RnsKernel, sealDataWords } from '@sealbox/he-ring'
import type { ComprModeType } from 'node-seal/throws'
import { HeError } from '../errors/HeError.ts'
import { ringCall, sealCall } from '../errors/toHeError.ts'
import { giantRows, type SearchDiagonalSink } from './processSearchDatabase.ts'
import { residuesBelowPrimes } from './residuesBelowPrimes.ts'
import type { SearchConfig } from './SearchConfig.ts'
import type { SearchBlock } from './searchLayout.ts'

/** `KeySwitchSearch.sink`: a block's diagonals may also arrive already in the kernel's order (`ordered`). */
export interface KeySwitchDiagonalSink extends SearchDiagonalSink {
  beginBlock(block: SearchBlock, options?: { ordered?: boolean }): void
}

/**
 * Where `processSearchDatabase` streams a `KeySwitchSearch`'s diagonals: u32 residues, L × n
 * words a diagonal, in `kernel`'s diagonal memory. A block's region is reserved at
 * `beginBlock` and each diagonal goes to its place in the kernel's order (giant step by
 * giant step, chunk-major), so diagonals may arrive in processing order (chunk by chunk)
 * and SEAL holds one at a time. A block done (`endBlock`, or `load` from a cache) sets its
 * offsets per giant step in `rows`.
 */
export function keySwitchDiagonalSink(options: {
  kernel: RnsKernel
  config: SearchConfig
  /** SEAL's uncompressed save mode, for reading diagonals as they are streamed in. */
  saveMode: ComprModeType
  /** Per block: per giant step b, the kernel offsets of its g (or fewer) diagonals. */
  rows: Map<number, number[][]>
}): KeySwitchDiagonalSink {
  const { kernel, config, saveMode } = options
  const n = config.polyModulusDegree
  const plainWords = kernel.L * n
  const stride = plainWords * 4
  const words = new Uint32Array(plainWords)
  let current: { index: number; start: number; place: number[] } | undefined
  const rowsOf = (block: SearchBlock, start: number) => {
    let next = start
    return giantRows(
      config,
      block,
      Array.from({ length: block.diagonals }, (_, k) => k),
    ).map((row) =>
      row.map(() => {
        next += stride
        return next - stride
      }),
    )
  }
  return {
    diagonalBytes: stride,
    beginBlock: (block, blockOptions = {}) => {
      const start = kernel.diagonals.alloc(plainWords * block.diagonals)
      // place[k]: where processing-order diagonal k goes in the kernel's order.
      const order = giantRows(
        config,
        block,
        Array.from({ length: block.diagonals }, (_, k) => k),
      ).flat()
      const place = new Array<number>(block.diagonals)
      order.forEach((k, position) => {
        place[blockOptions.ordered ? position : k] = start + position * stride
      })
      current = { index: block.index, start, place }
    },
    put: (k, plaintext) => {
      const at = current?.place[k]
      if (at === undefined) throw new HeError('INTERNAL', `diagonal ${k} is outside the block being streamed`)
      const saved = sealCall('save diagonal', () => plaintext.saveToArray(saveMode) as Uint8Array)
      const residues = ringCall('read diagonal', () => sealDataWords(saved, plainWords))
      if (narrowResidues(residues, words, kernel.shape.keyPrimes, n) > 0) {
        throw new HeError('INTERNAL', 'SEAL saved a diagonal residue at or above its prime')
      }
      kernel.diagonals.words(at, plainWords).set(words)
    },
    endBlock: (block) => {
      if (current?.index !== block.index) throw new HeError('INTERNAL', `block ${block.index} was not begun`)
      const { start } = current
      current = undefined
      options.rows.set(block.index, rowsOf(block, start))
      return Array.from(
        { length: block.diagonals },
        (_, k) => new Uint8Array(kernel.diagonals.memory.buffer, start + k * stride, stride),
      )
    },
    load: (block, saved) => {
      if (saved.length !== block.diagonals || saved.some((diagonal) => diagonal.byteLength !== stride)) {
        return false
      }
      // The cache vouches for the bytes; every residue below its prime is what SEAL's load would
      // check. Checked where the cache read them, then copied once into the diagonal memory.
      const primes = kernel.shape.keyPrimes.slice(0, kernel.L).map(Number)
      for (const diagonal of saved) {
        if (!residuesBelowPrimes(diagonal, primes, n, words)) return false
      }
      const start = kernel.diagonals.alloc(plainWords * block.diagonals)
      const region = new Uint8Array(kernel.diagonals.memory.buffer, start, stride * block.diagonals)
      saved.forEach((diagonal, k) => {
        region.set(diagonal, k * stride)
      })
      options.rows.set(block.index, rowsOf(block, start))
      return true
    },
  }
}

import {
  encodeBatch,
  encryptSymmetric,
  type HeContext,
  type KeySet,
  type ProgramInput,
  parseProgram,
  programCost,
  withScope,
} from '@sealbox/he-core'
import { saveSealObject } from '@sealbox/he-core/envelope'
import { grownProductsProgram } from './abusePrograms.ts'

/*
 * Programs that need memory rather than time: grown products kept alive at once, and
 * a program that mostly loads inputs. Shared by the memory-pricing and out-of-memory
 * abuse tests.
 */

/** BGV at n = 16384: eight data primes, so a fresh ciphertext is 2 MiB in the heap and a size-13 product 13 MiB. */
export const MEMORY_PARAMS = { scheme: 'bgv', polyModulusDegree: 16384, plainModulus: { batchingBits: 20 } } as const

/** Grows x to sizes 3, 5 and 9 (no relinearization), then keeps `products` size-13 products alive until a final sum. */
export function memoryProgram(products: number): ProgramInput {
  return grownProductsProgram(products, 3)
}

/**
 * A program that takes memory fast: x grown to size 5 (two squares), then `count` sums
 * s5 + s5 (5 MiB each at MEMORY_PARAMS, about a millisecond to make) kept alive until a
 * final sum of them all.
 */
export function heapFillProgram(count: number): ProgramInput {
  const names = Array.from({ length: count }, (_, i) => `d${i}`)
  return {
    version: 1,
    inputs: [{ name: 'x', kind: 'ciphertext' }],
    steps: [
      { op: 'square', a: 'x', out: 's3' },
      { op: 'square', a: 's3', out: 's5' },
      ...names.map((out) => ({ op: 'add' as const, a: 's5', b: 's5', out })),
      ...names
        .slice(1)
        .map((name, i) => ({ op: 'add' as const, a: i === 0 ? 'd0' : `t${i - 1}`, b: name, out: `t${i}` })),
    ],
    outputs: [`t${count - 2}`],
  }
}

/** A program that mostly loads: `count` fresh inputs summed. */
export function slowLoadProgram(count: number): ProgramInput {
  const names = Array.from({ length: count }, (_, i) => `x${i}`)
  return {
    version: 1,
    inputs: names.map((name) => ({ name, kind: 'ciphertext' })),
    steps: names.slice(1).map((name, i) => ({ op: 'add', a: i === 0 ? 'x0' : `v${i - 1}`, b: name, out: `v${i}` })),
    outputs: [`v${count - 2}`],
  }
}

/** The cost model's peak heap of a program at MEMORY_PARAMS. */
export function peakOf(program: ProgramInput): number {
  return programCost(parseProgram(program).program, {
    scheme: MEMORY_PARAMS.scheme,
    polyModulusDegree: MEMORY_PARAMS.polyModulusDegree,
  }).peakHeapBytes
}

/** A fresh BGV n = 16384 input. */
export function encryptMemoryInput(ctx: HeContext, keys: KeySet, seed: number): Uint8Array {
  return withScope((scope) =>
    saveSealObject(encryptSymmetric(keys, encodeBatch(ctx, [seed, 2, 3], scope), scope), {
      kind: 'ciphertext',
      fingerprint: ctx.fingerprint,
      keySetId: keys.id,
      compression: 'zstd',
    }),
  )
}

import {
  analyzeProgram,
  encodeBatch,
  encryptSymmetric,
  type HeContext,
  type KeySet,
  type ParamsInput,
  type ProgramInput,
  parseParams,
  withScope,
} from '@sealbox/he-core'
import { encodeEvaluateRequest } from '@sealbox/he-core/client'
import { encodeEnvelope, saveSealObject } from '@sealbox/he-core/envelope'
import { fakeSealPayload } from '@sealbox/he-core/testing'
import { admitProgram } from '../../src/app/programAdmission.ts'
import type { KeySetRecord } from '../../src/store/KeyStore.ts'

/*
 * The HE programs and parameters the abuse suite sends, in one place so each attack
 * names what it sends rather than spelling it out again.
 */

/** BFV at n = 4096 with batching: small enough to be quick, large enough for x^16. */
export const SMALL_BFV_PARAMS = { scheme: 'bfv', polyModulusDegree: 4096, plainModulus: { batchingBits: 20 } } as const

/** y = x + x: the cheapest program there is, for attacks on the parameters rather than the work. */
export const identityProgram: ProgramInput = {
  version: 1,
  inputs: [{ name: 'x', kind: 'ciphertext' }],
  steps: [{ op: 'add', a: 'x', b: 'x', out: 'y' }],
  outputs: ['y'],
}

/**
 * x − y, sent with the same ciphertext as both inputs: every check before SEAL passes
 * (the analysis sees two inputs; nothing compares them), and SEAL then refuses with a C++
 * exception because the result would be transparent (an unencrypted zero). Any client can
 * make SEAL throw this way, once per request.
 */
export const transparentProgram: ProgramInput = {
  version: 1,
  inputs: [
    { name: 'x', kind: 'ciphertext' },
    { name: 'y', kind: 'ciphertext' },
  ],
  steps: [{ op: 'sub', a: 'x', b: 'y', out: 'r' }],
  outputs: ['r'],
}

/**
 * Products of grown ciphertexts, nothing relinearized: x squared `squarings` times (3, 5
 * and, with three, 9 polynomials), then `products` copies of the last two squares' product
 * (7 or 13 polynomials each, SEAL's general product loop) summed. One input, so its body is
 * small; per cost unit among the slowest programs the model admits, and with three
 * squarings at a large n the most heap for the fewest bytes sent.
 */
export function grownProductsProgram(products: number, squarings: 2 | 3 = 2): ProgramInput {
  const names = Array.from({ length: products }, (_, i) => `p${i}`)
  const squares = ['s3', 's5', 's9'].slice(0, squarings)
  const [smaller, larger] = squares.slice(-2) as [string, string]
  return {
    version: 1,
    inputs: [{ name: 'x', kind: 'ciphertext' }],
    steps: [
      ...squares.map((out, i) => ({ op: 'square' as const, a: i === 0 ? 'x' : (squares[i - 1] as string), out })),
      ...names.map((out) => ({ op: 'multiply' as const, a: larger, b: smaller, out })),
      ...names
        .slice(1)
        .map((name, i) => ({ op: 'add' as const, a: i === 0 ? 'p0' : `t${i - 1}`, b: name, out: `t${i}` })),
    ],
    outputs: [products === 1 ? 'p0' : `t${products - 2}`],
  }
}

/**
 * A program's price in cost units exactly as the server admits it (`admitProgram`: with
 * the stored key set it runs with, `record`), without the per-job heap bound.
 */
export function serverPrice(params: ParamsInput, program: ProgramInput, record?: KeySetRecord): number {
  const resolved = parseParams(params)
  const analysis = analyzeProgram(program, resolved)
  return admitProgram(analysis, resolved, record, { MAX_JOB_HEAP_BYTES: Number.POSITIVE_INFINITY }).units
}

/** The largest `k` (from 1, at most `maxK`) whose program `make(k)` the server prices at most `limit` units. */
export function largestWithin(
  limit: number,
  make: (k: number) => ProgramInput,
  price: (p: ProgramInput) => number,
  maxK = Number.POSITIVE_INFINITY,
) {
  let k = 1
  while (k < maxK && price(make(k + 1)) <= limit) k++
  return k
}

/** A zstd ciphertext envelope of [seed, 2, 3] under `keys`, as a program's input. */
export function encryptedInput(ctx: HeContext, keys: KeySet, seed = 1): Uint8Array {
  return withScope((scope) =>
    saveSealObject(encryptSymmetric(keys, encodeBatch(ctx, [seed, 2, 3], scope), scope), {
      kind: 'ciphertext',
      fingerprint: ctx.fingerprint,
      keySetId: keys.id,
      compression: 'zstd',
    }),
  )
}

/**
 * A ciphertext envelope with a fake SEAL payload (40 bytes, under a made-up fingerprint):
 * every check before a worker reads it passes, and a worker that does read it refuses it.
 */
export function fakeInput(): Uint8Array {
  return encodeEnvelope({
    kind: 'ciphertext',
    fingerprint: '00112233445566778899aabbccddeeff',
    payload: fakeSealPayload(40),
  })
}

/**
 * The evaluate body of an n = 16384 BFV program of `multiplies` multiplies (no keys needed):
 * one costs ≈ 520 cost units (the multiply ≈ 430, loading 2 × 2 MiB and saving 3 MiB the rest), two ≈ 1,180. Its inputs are envelopes with a fake SEAL payload:
 * a request refused at admission never reads them, and one admitted fails in the worker at once.
 */
export function multiplyBody(multiplies: 1 | 2): Uint8Array {
  const fake = fakeInput()
  return encodeEvaluateRequest({
    params: { scheme: 'bfv', polyModulusDegree: 16384, plainModulus: { batchingBits: 20 } },
    program: {
      version: 1,
      inputs: [
        { name: 'x', kind: 'ciphertext' },
        { name: 'y', kind: 'ciphertext' },
      ],
      steps:
        multiplies === 1
          ? [{ op: 'multiply', a: 'x', b: 'y', out: 'r' }]
          : [
              { op: 'multiply', a: 'x', b: 'y', out: 'xy' },
              { op: 'multiply', a: 'xy', b: 'y', out: 'r' },
            ],
      outputs: ['r'],
    },
    inputs: { x: fake, y: fake },
  })
}

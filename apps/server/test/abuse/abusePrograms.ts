import {
  encodeBatch,
  encodeEnvelope,
  encryptSymmetric,
  type HeContext,
  type KeySet,
  type ProgramInput,
  saveSealObject,
  withScope,
} from '@sealbox/he-core'
import { encodeEvaluateRequest } from '@sealbox/he-core/client'
import { fakeSealPayload } from '@sealbox/he-core/testing'

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

/** A zstd ciphertext envelope of [1, 2, 3] under `keys`, as a program's input. */
export function encryptedInput(ctx: HeContext, keys: KeySet): Uint8Array {
  return withScope((scope) =>
    saveSealObject(encryptSymmetric(keys, encodeBatch(ctx, [1, 2, 3], scope), scope), {
      kind: 'ciphertext',
      fingerprint: ctx.fingerprint,
      keySetId: keys.id,
      compression: 'zstd',
    }),
  )
}

/**
 * The evaluate body of an n = 16384 BFV program of `multiplies` multiplies (no keys needed):
 * one costs ≈ 520 cost units (the multiply ≈ 430, loading 2 × 2 MiB and saving 3 MiB the rest), two ≈ 1,180. Its inputs are envelopes with a fake SEAL payload:
 * a request refused at admission never reads them, and one admitted fails in the worker at once.
 */
export function multiplyBody(multiplies: 1 | 2): Uint8Array {
  const fake = encodeEnvelope({
    kind: 'ciphertext',
    fingerprint: '00112233445566778899aabbccddeeff',
    payload: fakeSealPayload(40),
  })
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

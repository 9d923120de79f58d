import type { WorkspaceInput } from './WorkspaceSpec.ts'

/**
 * Ready-made workspaces, one per scheme, each a multi-step pipeline that uses most
 * ops. The sandbox offers them as starting points; the codegen tests run them.
 */
export const EXAMPLE_WORKSPACES = {
  /** BFV: multiply → relinearize → rotate → add, plain ops, sums, inner product, exponentiate. */
  bfv: {
    version: 1,
    params: { scheme: 'bfv', polyModulusDegree: 4096 },
    keys: { galois: 'powerOfTwo' },
    variables: [
      { name: 'x', kind: 'ciphertext', values: [1, 2, 3, 4, 5, 6, 7, 8, -9, 10] },
      { name: 'y', kind: 'ciphertext', values: [10, -20, 30, 40, 50, 60, 70, 80, 90, 100] },
      { name: 'w', kind: 'plaintext', values: [3, 1, 4, 1, 5, 9, 2, 6, 5, 3] },
    ],
    steps: [
      { op: 'multiply', a: 'x', b: 'y', out: 'xy' },
      { op: 'relinearize', a: 'xy', out: 'xyRelin' },
      { op: 'rotateRows', a: 'xyRelin', steps: 3, out: 'rotated' },
      { op: 'add', a: 'rotated', b: 'x', out: 'sum' },
      { op: 'addPlain', a: 'sum', b: 'w', out: 'plusW' },
      { op: 'subPlain', a: 'x', b: 'w', out: 'minusW' },
      { op: 'multiplyPlain', a: 'y', b: 'w', out: 'timesW' },
      { op: 'negate', a: 'timesW', out: 'negated' },
      { op: 'rotateColumns', a: 'x', out: 'swapped' },
      { op: 'sumElements', a: 'x', out: 'total' },
      { op: 'innerProduct', a: 'x', b: 'y', out: 'dot' },
      { op: 'innerProductPlain', a: 'y', b: 'w', out: 'dotW' },
      { op: 'exponentiate', a: 'x', exponent: 2, out: 'squared' },
      { op: 'sub', a: 'squared', b: 'xyRelin', out: 'diff' },
    ],
    print: ['plusW', 'minusW', 'negated', 'swapped', 'total', 'dot', 'dotW', 'diff'],
  },
  /** BGV at n=8192 with seeded keys for exactly its rotations, symmetric encryption and level alignment. */
  bgv: {
    version: 1,
    params: { scheme: 'bgv', polyModulusDegree: 8192, plainModulus: { value: 65537 } },
    keys: { seeded: true },
    encryption: 'symmetric',
    variables: [
      // Names that clash with the generated program's own identifiers are renamed there.
      { name: 'context', kind: 'ciphertext', values: [2, 3, 5, 7, 11, 13, 17, 19] },
      { name: 'y', kind: 'ciphertext', values: [-1, 1, -1, 1, -1, 1, -1, 1] },
      { name: 'p', kind: 'plaintext', values: [100, 200, 300, 400] },
    ],
    steps: [
      { op: 'square', a: 'context', out: 'sq' },
      { op: 'relinearize', a: 'sq', out: 'sqRelin' },
      { op: 'modSwitchToNext', a: 'sqRelin', out: 'lower' },
      { op: 'add', a: 'lower', b: 'y', out: 'product', align: true },
      { op: 'exponentiate', a: 'context', exponent: 3, out: 'cubed' },
      { op: 'rotateRows', a: 'cubed', steps: -5, out: 'right5' },
      { op: 'innerProductPlain', a: 'context', b: 'p', out: 'dotP' },
      { op: 'modSwitchToLast', a: 'dotP', out: 'small' },
    ],
    print: ['product', 'right5', 'small', 'p'],
    display: { slots: 12 },
  },
  /** CKKS: multiply → relinearize → rescale → rotate → add (aligned), plain ops at a lower level, sums. */
  ckks: {
    version: 1,
    params: { scheme: 'ckks', polyModulusDegree: 8192 },
    variables: [
      { name: 'x', kind: 'ciphertext', values: [0.5, 1.25, -2, 3.75, 1, 0, 0.125, -0.5] },
      { name: 'y', kind: 'ciphertext', values: [2, -1, 0.5, 1.5, -3, 2.5, 4, 1] },
      { name: 'w', kind: 'plaintext', values: [1, 2, 3, 4, 5, 6, 7, 8] },
    ],
    steps: [
      { op: 'multiply', a: 'x', b: 'y', out: 'xy' },
      { op: 'relinearize', a: 'xy', out: 'xyRelin' },
      { op: 'rescaleToNext', a: 'xyRelin', out: 'xyRescaled' },
      { op: 'rotateVector', a: 'xyRescaled', steps: 2, out: 'rotated' },
      { op: 'add', a: 'rotated', b: 'x', out: 'sum', align: true },
      { op: 'addPlain', a: 'sum', b: 'w', out: 'plusW', align: true },
      { op: 'multiplyPlain', a: 'x', b: 'w', out: 'timesW' },
      { op: 'complexConjugate', a: 'timesW', out: 'conjugated' },
      { op: 'square', a: 'y', out: 'ySquared' },
      { op: 'relinearize', a: 'ySquared', out: 'ySquaredRelin' },
      { op: 'rescaleToNext', a: 'ySquaredRelin', out: 'ySquaredRescaled' },
      { op: 'modSwitchToNext', a: 'w', out: 'wLower' },
      { op: 'subPlain', a: 'ySquaredRescaled', b: 'wLower', out: 'minusW', align: true },
      { op: 'sumElements', a: 'x', out: 'total' },
      { op: 'innerProduct', a: 'x', b: 'y', out: 'dot' },
      { op: 'innerProductPlain', a: 'y', b: 'w', out: 'dotW' },
      { op: 'rescaleToNext', a: 'dot', out: 'dotRescaled' },
      { op: 'modSwitchToLast', a: 'dotRescaled', out: 'dotLast' },
    ],
    print: ['plusW', 'conjugated', 'minusW', 'total', 'dotLast', 'dotW'],
    display: { slots: 8, decimals: 4 },
  },
} satisfies Record<'bfv' | 'bgv' | 'ckks', WorkspaceInput>

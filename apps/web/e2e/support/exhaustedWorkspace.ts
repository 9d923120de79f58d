import type { WorkspaceInput } from '@sealbox/he-core'

/**
 * BFV n = 8192, [51, 51, 51] with `x` holding `values`: multiply, relinearize, multiply,
 * relinearize, multiply. Two multiplications fit; the third (step 5, `r5`) exhausts the
 * noise budget — the pipeline the Code panel, the exports and the step menu must all stop at.
 */
export function exhaustedWorkspace(values: number[] = [1, 2, 3]): WorkspaceInput {
  return {
    version: 1,
    params: { scheme: 'bfv', polyModulusDegree: 8192, coeffModulus: [51, 51, 51] },
    variables: [{ name: 'x', kind: 'ciphertext', values }],
    steps: [
      { op: 'multiply', a: 'x', b: 'x', out: 'r1' },
      { op: 'relinearize', a: 'r1', out: 'r2' },
      { op: 'multiply', a: 'r2', b: 'x', out: 'r3' },
      { op: 'relinearize', a: 'r3', out: 'r4' },
      { op: 'multiply', a: 'r4', b: 'x', out: 'r5' },
    ],
    print: ['r5'],
  }
}

import { HeError } from '../errors/HeError.ts'

/**
 * SEAL's Galois element for a rotation step (GaloisTool::get_elt_from_step):
 * 0 means the column swap (BFV/BGV) or complex conjugation (CKKS), 2n−1; a
 * left rotation by s is 3^s mod 2n, a right rotation by s is 3^(n/2−s) mod 2n.
 */
export function galoisElementOf(polyModulusDegree: number, step: number): number {
  const m = 2 * polyModulusDegree
  const rowSize = polyModulusDegree / 2
  if (step === 0) return m - 1
  const magnitude = Math.abs(step)
  if (!Number.isInteger(step) || magnitude >= rowSize) {
    throw new HeError('INVALID_INPUT', `rotation step ${step} is out of range; |step| must be < ${rowSize}`)
  }
  let exponent = step < 0 ? rowSize - magnitude : magnitude
  let element = 1
  while (exponent-- > 0) element = (element * 3) % m
  return element
}

/** The steps of SEAL's default Galois key set: ±2^k for 2^k < n/2, and 0 (column swap / conjugation). */
export function powerOfTwoSteps(polyModulusDegree: number): number[] {
  const steps: number[] = []
  const rowSize = polyModulusDegree / 2
  for (let s = 1; s < rowSize; s *= 2) {
    steps.push(s)
    // Left and right by n/4 are the same rotation of an n/2 row: one element.
    if (s < rowSize / 2) steps.push(-s)
  }
  steps.push(0)
  return steps
}

/** Normalises requested rotation steps: validated, deduplicated, sorted. */
export function normalizeSteps(polyModulusDegree: number, steps: readonly number[]): number[] {
  for (const step of steps) galoisElementOf(polyModulusDegree, step)
  return [...new Set(steps)].sort((a, b) => a - b)
}

import { galoisElementOf } from '../keys/galoisElements.ts'

/** The Galois element of a column rotation (BFV/BGV) or complex conjugation (CKKS): 2n − 1. */
export function columnRotationElement(polyModulusDegree: number): number {
  return galoisElementOf(polyModulusDegree, 0)
}

/**
 * The non-adjacent form of `step` (signed powers of two, lowest first), which is
 * how SEAL decomposes a rotation that has no key of its own.
 */
export function nafTerms(step: number): number[] {
  const terms: number[] = []
  const negative = step < 0
  let value = Math.abs(step)
  for (let bit = 0; value !== 0; bit++) {
    const digit = value & 1 ? 2 - (value & 3) : 0
    value = (value - digit) / 2
    if (digit !== 0) terms.push((negative ? -digit : digit) * 2 ** bit)
  }
  return terms
}

/** What a rotation by one step needs from a set of Galois keys. */
export interface RotationKeyCheck {
  ok: boolean
  /** Steps whose key is missing (the step itself, or the parts SEAL would compose it from). */
  missingSteps: number[]
  /** How many key switches SEAL performs for this rotation with these keys. */
  keySwitches: number
}

/**
 * Whether Galois keys can rotate by `step`, checked with `hasKey(element)` before
 * SEAL is called (SEAL itself only says "Galois key not present" afterwards).
 * Mirrors SEAL's `rotate_internal`: a rotation uses its own key when present,
 * otherwise it is split into NAF terms, each rotated the same way (a term of n/2
 * is the identity and skipped). A power of two without a key cannot be split.
 */
export function checkRotationKeys(
  polyModulusDegree: number,
  step: number,
  hasKey: (element: number) => boolean,
): RotationKeyCheck {
  if (step === 0) return { ok: true, missingSteps: [], keySwitches: 0 }
  if (hasKey(galoisElementOf(polyModulusDegree, step))) return { ok: true, missingSteps: [], keySwitches: 1 }
  const terms = nafTerms(step)
  if (terms.length === 1) return { ok: false, missingSteps: [step], keySwitches: 0 }
  const missingSteps: number[] = []
  let keySwitches = 0
  for (const term of terms) {
    if (Math.abs(term) === polyModulusDegree / 2) continue
    const part = checkRotationKeys(polyModulusDegree, term, hasKey)
    missingSteps.push(...part.missingSteps)
    keySwitches += part.keySwitches
  }
  return { ok: missingSteps.length === 0, missingSteps, keySwitches }
}

/** Steps of the rotate-and-add loop of `sumElements`: n/4, n/8, …, 1 (row or CKKS vector halves). */
export function sumElementsSteps(polyModulusDegree: number): number[] {
  const steps: number[] = []
  for (let step = polyModulusDegree / 4; step >= 1; step /= 2) steps.push(step)
  return steps
}

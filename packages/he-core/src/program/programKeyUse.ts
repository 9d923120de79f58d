import { galoisElementOf } from '../keys/galoisElements.ts'
import type { ProgramAnalysis } from './analyzeProgram.ts'
import type { KeyLookup } from './checkProgramKeys.ts'
import { columnRotationElement, nafTerms } from './rotationKeys.ts'

/** The evaluation keys a program really uses of a key set: what a server loads for it, and no more. */
export interface ProgramKeyUse {
  /** Whether a step relinearizes (the relinearization key is loaded). */
  relinKeys: boolean
  /** The Galois elements its rotations use with this key set, ascending. */
  galoisElements: number[]
}

/**
 * Which keys of `galoisKeys` the program's steps use, resolved the way SEAL resolves
 * them (`checkRotationKeys`): a rotation with its own key uses that key, one without is
 * split into its NAF terms, each resolved the same way (a term of ±n/2 is the identity).
 * Loading just these keys leaves every rotation resolving to the same keys, so a
 * `rotateRows(1)` against a key set of 700 elements loads one. Elements the set lacks
 * are left out (the caller refuses such a program first, with `missingProgramKeys`).
 */
export function programKeyUse(analysis: ProgramAnalysis, galoisKeys: KeyLookup | undefined): ProgramKeyUse {
  const n = analysis.polyModulusDegree
  const used = new Set<number>()
  const resolve = (step: number): void => {
    if (step === 0 || Math.abs(step) === n / 2) return
    const element = galoisElementOf(n, step)
    if (galoisKeys?.hasKey(element)) {
      used.add(element)
      return
    }
    const terms = nafTerms(step)
    if (terms.length > 1) for (const term of terms) resolve(term)
  }
  for (const step of analysis.steps) {
    for (const rotation of step.galoisSteps) resolve(rotation)
    if (step.needsColumnRotation && galoisKeys?.hasKey(columnRotationElement(n))) used.add(columnRotationElement(n))
  }
  return { relinKeys: analysis.needsRelinKeys, galoisElements: [...used].sort((a, b) => a - b) }
}

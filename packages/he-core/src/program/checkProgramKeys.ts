import { HeError } from '../errors/HeError.ts'
import type { ProgramAnalysis } from './analyzeProgram.ts'
import type { ProgramOp } from './ProgramSpec.ts'
import { checkRotationKeys, columnRotationElement } from './rotationKeys.ts'
import { stepLabel } from './stepLabel.ts'

/** Anything that can say whether it holds a key: SEAL's `RelinKeys`/`GaloisKeys`, or a set of ids from metadata. */
export interface KeyLookup {
  hasKey(index: number): boolean
}

/** The evaluation keys offered to a program. */
export interface ProgramKeys {
  relinKeys?: KeyLookup | undefined
  galoisKeys?: KeyLookup | undefined
}

/** One key a step needs and does not have. */
export interface MissingKey {
  stepIndex: number
  op: ProgramOp
  key: 'relin' | 'galois'
  /** Rotation steps without a usable key (0 = the column rotation / conjugation). */
  steps: number[]
  message: string
}

/** Relinearizing a ciphertext of size k needs the keys for powers 2 … k − 1 of the secret key. */
const RELIN_POWER = 2

/**
 * Every key the program's steps need and `keys` lacks, in step order. A rotation
 * without its own key counts as present when SEAL can compose it from others
 * (e.g. step 3 from the power-of-two keys 4 and −1), exactly as SEAL would.
 */
export function missingProgramKeys(analysis: ProgramAnalysis, keys: ProgramKeys): MissingKey[] {
  const n = analysis.polyModulusDegree
  const missing: MissingKey[] = []
  const galois = keys.galoisKeys
  for (const step of analysis.steps) {
    const label = stepLabel(step.index, step.op)
    if (step.needsRelinKeys && !keys.relinKeys?.hasKey(RELIN_POWER)) {
      missing.push({
        stepIndex: step.index,
        op: step.op,
        key: 'relin',
        steps: [],
        message: `${label}: needs relinearization keys; none were given`,
      })
    }
    const lacking: number[] = []
    for (const s of step.galoisSteps) {
      const check = galois ? checkRotationKeys(n, s, (e) => galois.hasKey(e)) : { ok: false, missingSteps: [s] }
      if (!check.ok) lacking.push(s)
    }
    const columnMissing = step.needsColumnRotation && !galois?.hasKey(columnRotationElement(n))
    if (lacking.length > 0 || columnMissing) {
      const parts: string[] = []
      if (lacking.length > 0) parts.push(`rotation${lacking.length > 1 ? 's' : ''} by ${lacking.join(', ')}`)
      if (columnMissing) {
        const what = analysis.scheme === 'ckks' ? 'complex conjugation' : 'the column rotation'
        parts.push(`${what} (Galois element ${columnRotationElement(n)})`)
      }
      const why = galois ? 'the Galois keys given have no key for' : 'no Galois keys were given, needed for'
      missing.push({
        stepIndex: step.index,
        op: step.op,
        key: 'galois',
        steps: columnMissing ? [...lacking, 0] : lacking,
        message: `${label}: ${why} ${parts.join(' and ')}; generate Galois keys with these steps (or the power-of-two set)`,
      })
    }
  }
  return missing
}

/**
 * Throws `MISSING_KEY` naming the first step whose key is missing — what a server
 * calls before doing any work, and what `runProgram` calls before touching SEAL.
 */
export function checkProgramKeys(analysis: ProgramAnalysis, keys: ProgramKeys): void {
  const missing = missingProgramKeys(analysis, keys)
  const first = missing[0]
  if (first) {
    throw new HeError('MISSING_KEY', first.message, {
      details: {
        stepIndex: first.stepIndex,
        op: first.op,
        key: first.key,
        steps: first.steps,
        missing: missing.length,
      },
    })
  }
}

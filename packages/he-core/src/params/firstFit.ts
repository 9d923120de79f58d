import type { ChainFailure, ParamsSuccess } from './ChainAttempt.ts'
import { ckksAttempt } from './ckksAttempt.ts'
import { MAX_COEFF_BITS } from './coeffModulusTables.ts'
import { integerAttempt } from './integerAttempt.ts'
import type { ParamsNeeds } from './ParamsNeeds.ts'
import { POLY_MODULUS_DEGREES } from './ParamsSpec.ts'

/** The first ring degree (smallest) whose chain SEAL can build and the budget holds, or every attempt. */
export function firstFit(needs: ParamsNeeds): ParamsSuccess | ChainFailure[] {
  const table = MAX_COEFF_BITS[needs.security]
  const ckks = needs.precisionBits !== undefined
  const attempts: ChainFailure[] = []
  for (const n of POLY_MODULUS_DEGREES) {
    if ((ckks ? n / 2 : n) < needs.slots) continue
    const max = table[n] ?? 0
    const attempt = ckks ? ckksAttempt(needs, n, max) : integerAttempt(needs, n, max)
    if (attempt.fits) return attempt.suggestion
    attempts.push(attempt)
  }
  return attempts
}

import { alternativesTo } from './alternativesTo.ts'
import { checkParamsNeeds, MAX_N } from './checkParamsNeeds.ts'
import { CKKS_NOISE_BITS } from './ckksAttempt.ts'
import { firstFit } from './firstFit.ts'
import type { ParamsNeeds, ParamsSuggestion } from './ParamsNeeds.ts'

/**
 * Suggests encryption parameters from what the user needs: multiplicative depth,
 * slots, plaintext bits (BFV, or BGV when `scheme` says so) or precision bits (CKKS), security. Picks the smallest
 * n whose secure coefficient-modulus budget (SEAL's `MaxBitCount`, `MAX_COEFF_BITS`)
 * fits the chain the depth needs and where SEAL can make every prime (a batching
 * plain modulus of exactly the asked size, enough primes ≡ 1 mod 2n of each size —
 * the rules `parseParams` checks, from `modulusProblems.ts`), and says why for each
 * choice. Pure and fast (no SEAL). Every need that cannot be met is listed at once; a
 * refusal names what would work instead.
 */
export function suggestParams(needs: ParamsNeeds): ParamsSuggestion {
  const problems = checkParamsNeeds(needs)
  if (problems.length > 0) {
    // Too many slots hides whether the depth fits at all: ask again with one slot, and
    // list both (every unmet need at once).
    if (problems.every((problem) => problem.field === 'slots')) {
      const rest = suggestParams({ ...needs, slots: 1 })
      if (!rest.ok) problems.push(...rest.problems)
    }
    return { ok: false, problems }
  }
  const found = firstFit(needs)
  if (!Array.isArray(found)) return found
  const ckks = needs.precisionBits !== undefined
  const bitsField = ckks ? 'precisionBits' : 'plainBits'
  const bits = ckks ? `${needs.precisionBits} precision bits` : `${needs.plainBits}-bit plaintexts`
  const alternatives = alternativesTo(needs)
  const instead =
    alternatives.length > 0
      ? `; ${alternatives.join(', or ')} would work`
      : '; no parameters SEAL can build hold these needs'
  const closest = found.findLast((attempt) => attempt.why === 'budget')
  const blocked = found.filter((attempt) => attempt.why === 'prime').map((attempt) => attempt.n)
  const multiplications = `${needs.depth} multiplication${needs.depth === 1 ? '' : 's'}`
  const tooSmall = closest && ` (${closest.total} bits at n = ${closest.n}, which allows ${closest.max})`
  if (blocked.length === 0) {
    return {
      ok: false,
      problems: [
        {
          field: 'depth',
          message: `No n up to ${MAX_N} is large enough for ${multiplications} with ${bits} at ${needs.security}${tooSmall ?? ''}${instead}.`,
        },
      ],
    }
  }
  const overBudget = found.filter((attempt) => attempt.why === 'budget').map((attempt) => attempt.n)
  const primes = ckks
    ? `at n = ${blocked.join(', ')} SEAL cannot make enough ${(needs.precisionBits ?? 0) + CKKS_NOISE_BITS}-bit primes ≡ 1 (mod 2n) for the chain (one per multiplication)`
    : `at n = ${blocked.join(', ')} no batching prime of exactly ${needs.plainBits} bits (≡ 1 mod 2n) exists`
  const parts = [closest && `at n = ${overBudget.join(', ')} the chain is over the budget${tooSmall}`, primes].filter(
    Boolean,
  )
  const sentence = parts.join(', and ')
  return {
    ok: false,
    problems: [
      {
        field: bitsField,
        message: `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)} (${multiplications}, ${bits}, ${needs.slots} slot${needs.slots === 1 ? '' : 's'}, ${needs.security})${instead}.`,
      },
    ],
  }
}

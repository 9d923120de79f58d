import { CKKS_NOISE_BITS } from './ckksAttempt.ts'
import { MAX_COEFF_BITS } from './coeffModulusTables.ts'
import { minPlainBits } from './modulusProblems.ts'
import type { NeedsProblem, ParamsNeeds } from './ParamsNeeds.ts'
import { POLY_MODULUS_DEGREES, PRIME_BITS_MAX, SCALE_BITS_MAX } from './ParamsSpec.ts'

/** The largest ring SEAL supports (the last of POLY_MODULUS_DEGREES). */
export const MAX_N = 32768

/** Every need that is out of range on its own (before any chain is tried), in plain words. */
export function checkParamsNeeds(needs: ParamsNeeds): NeedsProblem[] {
  const problems: NeedsProblem[] = []
  const whole = (value: number | undefined) => value !== undefined && Number.isInteger(value)
  if (!whole(needs.depth) || needs.depth < 0 || needs.depth > 30) {
    problems.push({ field: 'depth', message: 'The number of multiplications in a row must be a whole number 0…30.' })
  }
  if (!whole(needs.slots) || needs.slots < 1) {
    problems.push({ field: 'slots', message: 'Say how many values one ciphertext must hold (at least 1).' })
  }
  const ckks = needs.precisionBits !== undefined
  if (ckks === (needs.plainBits !== undefined)) {
    problems.push({
      field: 'plainBits',
      message: 'Give either plaintext bits (whole numbers, BFV) or precision bits (real numbers, CKKS) — exactly one.',
    })
  } else if (ckks) {
    if (needs.scheme !== undefined) {
      problems.push({ field: 'scheme', message: 'Real numbers use CKKS: BFV and BGV hold whole numbers only.' })
    }
    const p = needs.precisionBits ?? 0
    if (!whole(p) || p < 1 || p > SCALE_BITS_MAX - CKKS_NOISE_BITS) {
      problems.push({
        field: 'precisionBits',
        message: `CKKS keeps at most ${SCALE_BITS_MAX - CKKS_NOISE_BITS} bits after the point (the scale is at most 2^${SCALE_BITS_MAX} and noise takes about ${CKKS_NOISE_BITS}); ask for 1…${SCALE_BITS_MAX - CKKS_NOISE_BITS}.`,
      })
    }
    // With no multiplication the data modulus is the first prime alone (≤ 60 bits), and it
    // must exceed the scale: the last precision bit does not fit.
    if (needs.depth === 0 && p === SCALE_BITS_MAX - CKKS_NOISE_BITS) {
      problems.push({
        field: 'precisionBits',
        message: `With no multiplication the scale 2^${SCALE_BITS_MAX} must fit one prime of at most ${PRIME_BITS_MAX} bits: ask for at most ${p - 1} bits.`,
      })
    }
    if (whole(needs.slots) && needs.slots > MAX_N / 2) {
      problems.push({
        field: 'slots',
        message: `CKKS holds at most ${MAX_N / 2} values per ciphertext (n = ${MAX_N}).`,
      })
    }
  } else {
    if (needs.scheme !== undefined && needs.scheme !== 'bfv' && needs.scheme !== 'bgv') {
      problems.push({ field: 'scheme', message: 'Whole numbers use BFV or BGV.' })
    }
    const t = needs.plainBits ?? 0
    // A batching prime is ≡ 1 (mod 2n): it needs more bits than 2n has, even at the smallest n.
    const min = minPlainBits(POLY_MODULUS_DEGREES[0])
    if (!whole(t) || t < min || t > PRIME_BITS_MAX) {
      problems.push({
        field: 'plainBits',
        message: `A batching plain modulus has ${min}…${PRIME_BITS_MAX} bits (it must be a prime ≡ 1 mod 2n).`,
      })
    }
    if (whole(needs.slots) && needs.slots > MAX_N) {
      problems.push({ field: 'slots', message: `BFV holds at most ${MAX_N} values per ciphertext (n = ${MAX_N}).` })
    }
  }
  if (!(needs.security in MAX_COEFF_BITS)) {
    problems.push({ field: 'security', message: 'Choose a security level: tc128, tc192 or tc256.' })
  }
  return problems
}

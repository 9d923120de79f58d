import { MAX_COEFF_BITS } from './coeffModulusTables.ts'
import { type ParamsInput, POLY_MODULUS_DEGREES, PRIME_BITS_MAX, SCALE_BITS_MAX } from './ParamsSpec.ts'

/** What a user needs from parameters, in their own terms. */
export interface ParamsNeeds {
  /** Multiplications in a row (each one relinearized, CKKS: and rescaled). */
  depth: number
  /** Values per ciphertext. */
  slots: number
  /** BFV (integers): bits of the plain modulus — values live in ±(t − 1)/2. */
  plainBits?: number
  /** CKKS (reals): bits of precision wanted after the binary point. */
  precisionBits?: number
  /** HomomorphicEncryption.org security level (`none` is not suggested). */
  security: 'tc128' | 'tc192' | 'tc256'
}

/** One need the assistant cannot meet, in plain words, with the field it is about. */
export interface NeedsProblem {
  field: keyof ParamsNeeds
  message: string
}

/** Parameters that meet the needs, each choice with its reason, or every broken rule at once. */
export type ParamsSuggestion =
  | {
      ok: true
      params: ParamsInput & { coeffModulus: number[] }
      /** Why each choice was made, in the order they were made. */
      reasons: string[]
      totalBits: number
      maxBits: number
    }
  | { ok: false; problems: NeedsProblem[] }

/** CKKS: the outer primes hold the integer part on top of the scale (SEAL's 60/40/60 pattern). */
const CKKS_INTEGER_BITS = 20
/** CKKS: fresh encryption noise and rescaling round-off use about this many low bits of the scale. */
const CKKS_NOISE_BITS = 20
/** The largest ring SEAL supports (the last of POLY_MODULUS_DEGREES). */
const MAX_N = 32768

/** Splits `total` bits into the fewest primes of at most 60 bits, as even as possible. */
function splitPrimes(total: number): number[] {
  const count = Math.max(1, Math.ceil(total / PRIME_BITS_MAX))
  const base = Math.floor(total / count)
  const extra = total - base * count
  return Array.from({ length: count }, (_, i) => base + (i < extra ? 1 : 0))
}

function checkNeeds(needs: ParamsNeeds): NeedsProblem[] {
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
    const p = needs.precisionBits ?? 0
    if (!whole(p) || p < 1 || p > SCALE_BITS_MAX - CKKS_NOISE_BITS) {
      problems.push({
        field: 'precisionBits',
        message: `CKKS keeps at most ${SCALE_BITS_MAX - CKKS_NOISE_BITS} bits after the point (the scale is at most 2^${SCALE_BITS_MAX} and noise takes about ${CKKS_NOISE_BITS}); ask for 1…${SCALE_BITS_MAX - CKKS_NOISE_BITS}.`,
      })
    }
    if (whole(needs.slots) && needs.slots > MAX_N / 2) {
      problems.push({
        field: 'slots',
        message: `CKKS holds at most ${MAX_N / 2} values per ciphertext (n = ${MAX_N}).`,
      })
    }
  } else {
    const t = needs.plainBits ?? 0
    // A batching prime is ≡ 1 (mod 2n): it needs more bits than 2n has.
    if (!whole(t) || t < 12 || t > PRIME_BITS_MAX) {
      problems.push({
        field: 'plainBits',
        message: `A batching plain modulus has 12…${PRIME_BITS_MAX} bits (it must be a prime ≡ 1 mod 2n).`,
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

/**
 * Suggests encryption parameters from what the user needs: multiplicative depth,
 * slots, plaintext bits (BFV) or precision bits (CKKS), security. Picks the smallest
 * n whose secure coefficient-modulus budget (SEAL's `MaxBitCount`, `MAX_COEFF_BITS`)
 * fits the chain the depth needs, and says why for each choice. Pure and fast (no
 * SEAL). Every need that cannot be met is listed at once.
 */
export function suggestParams(needs: ParamsNeeds): ParamsSuggestion {
  const problems = checkNeeds(needs)
  if (problems.length > 0) {
    // Too many slots hides whether the depth fits at all: ask again with one slot, and
    // list both (every unmet need at once).
    if (problems.every((problem) => problem.field === 'slots')) {
      const rest = suggestParams({ ...needs, slots: 1 })
      if (!rest.ok) problems.push(...rest.problems)
    }
    return { ok: false, problems }
  }
  const table = MAX_COEFF_BITS[needs.security]
  const ckks = needs.precisionBits !== undefined
  const { depth, slots } = needs
  let closest: { n: number; total: number; max: number } | undefined
  for (const n of POLY_MODULUS_DEGREES) {
    const max = table[n] ?? 0
    const slotCount = ckks ? n / 2 : n
    if (slotCount < slots) continue
    const log2n = Math.log2(n)
    const reasons: string[] = []
    let chain: number[]
    let extra: Pick<ParamsInput, 'scaleBits' | 'plainModulus'>
    if (ckks) {
      const scaleBits = (needs.precisionBits ?? 0) + CKKS_NOISE_BITS
      const outer = Math.min(PRIME_BITS_MAX, scaleBits + CKKS_INTEGER_BITS)
      // CoeffModulus.Create needs primes ≡ 1 (mod 2n): a prime must have more bits than 2n.
      if (scaleBits <= log2n + 1) continue
      chain = [outer, ...Array.from({ length: depth }, () => scaleBits), outer]
      extra = { scaleBits }
      reasons.push(
        `CKKS, because the values are real numbers; scale 2^${scaleBits}: about ${CKKS_NOISE_BITS} of its bits go to noise, leaving the ${needs.precisionBits} you asked for.`,
        `${depth} middle prime${depth === 1 ? '' : 's'} of ${scaleBits} bits: each multiplication is rescaled by one, returning to the same scale.`,
        `Outer primes of ${outer} bits: the first holds the integer part of a result, the last (the special prime) lets you make relinearization and Galois keys.`,
      )
    } else {
      const t = needs.plainBits ?? 0
      if (t <= log2n + 1) continue
      // Measured on node-seal 7 (repeated square + relinearize): a product costs about t + log2(n)
      // bits of noise budget; a fresh ciphertext t + log2(n) + 2 (parseParams' rule), plus a bit to spare.
      const fresh = t + log2n + 3
      const dataBits = fresh + depth * (t + log2n)
      const data = splitPrimes(Math.max(dataBits, log2n + 3))
      const special = Math.max(...data)
      chain = [...data, special]
      extra = { plainModulus: { batchingBits: t } }
      reasons.push(
        `BFV, because the values are whole numbers; a ${t}-bit batching plain modulus holds values in ±2^${t - 1}.`,
        `${dataBits} bits of data primes (split into ${data.join(' + ')}): a fresh ciphertext uses about ${fresh} bits of noise budget and each of the ${depth} multiplication${depth === 1 ? '' : 's'} about ${t + log2n}.`,
        `A special prime of ${special} bits (as large as the largest data prime) lets you make relinearization and Galois keys.`,
      )
    }
    const total = chain.reduce((a, b) => a + b, 0)
    closest = { n, total, max }
    if (total > max) continue
    reasons.unshift(
      `n = ${n}: the smallest ring with ${slots} slot${slots === 1 ? '' : 's'} whose ${needs.security} budget (${max} bits) fits the ${total}-bit coefficient modulus.`,
    )
    return {
      ok: true,
      params: {
        scheme: ckks ? 'ckks' : 'bfv',
        polyModulusDegree: n,
        coeffModulus: chain,
        ...extra,
        security: needs.security,
      },
      reasons,
      totalBits: total,
      maxBits: max,
    }
  }
  const needed = closest ? ` (${closest.total} bits at n = ${closest.n}, which allows ${closest.max})` : ''
  return {
    ok: false,
    problems: [
      {
        field: 'depth',
        message: `No n up to ${MAX_N} is large enough at ${needs.security}${needed}: ask for fewer multiplications, fewer ${ckks ? 'precision' : 'plaintext'} bits or a lower security level.`,
      },
    ],
  }
}

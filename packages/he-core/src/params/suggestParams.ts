import { MAX_COEFF_BITS } from './coeffModulusTables.ts'
import { coeffPrimesProblem, minPlainBits, plainBitsFit } from './modulusProblems.ts'
import {
  type ParamsInput,
  POLY_MODULUS_DEGREES,
  PRIME_BITS_MAX,
  PRIME_COUNT_MAX,
  SCALE_BITS_MAX,
} from './ParamsSpec.ts'

/** What a user needs from parameters, in their own terms. */
export interface ParamsNeeds {
  /** Multiplications in a row (each one relinearized, CKKS: and rescaled). */
  depth: number
  /** Values per ciphertext. */
  slots: number
  /** BFV/BGV (integers): bits of the plain modulus — values live in ±(t − 1)/2. */
  plainBits?: number
  /**
   * Whole numbers: the scheme to suggest, BFV (the default) or BGV. A BGV chain is
   * levelled like CKKS: each multiplication is relinearized and mod-switched, dropping
   * one prime (without the switch, SEAL's BGV noise squares at every multiplication).
   */
  scheme?: 'bfv' | 'bgv'
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
/**
 * BGV: bits a level's prime has above t · n^1.5: 4 more than the typical key set needs,
 * sized from the measured spread of a square's noise over key sets (see bgvAttempt).
 */
const BGV_LEVEL_BITS = 3
/** BGV: bits the first (last-level) prime needs above t · n. */
const BGV_LAST_LEVEL_BITS = 8
/** The largest ring SEAL supports (the last of POLY_MODULUS_DEGREES). */
const MAX_N = 32768

/** Splits `total` bits into `count` primes, as even as possible (larger first). */
function splitPrimes(total: number, count: number): number[] {
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

type Success = Extract<ParamsSuggestion, { ok: true }>

/** The smallest chain that fits at `n`, or why none does. */
type Attempt =
  | { fits: true; suggestion: Success }
  | { fits: false; why: 'prime'; n: number }
  | { fits: false; why: 'budget'; n: number; total: number; max: number }

type Failure = Extract<Attempt, { fits: false }>

/**
 * BGV, levelled: one prime per multiplication, each mod-switched away after it, and a
 * first prime that still decrypts. A mod switch leaves a floor of noise F ≈ 3·t·√n (SEAL
 * rounds by a multiple of t); a square turns noise x into G·x², G different for every key
 * set; dividing by the level's prime q gives x' = G·x²/q + F. That settles (at about F)
 * only when 4·G·F < q — otherwise nothing stops it: the excess doubles at every level, and
 * a chain that looks fine for 5 levels decrypts to garbage at the 8th. At n = 32768, t of
 * 25 bits: F ≈ 2^34, G ≈ 2^9 for a typical key set, so 4·G·F ≈ 2^45 against q ≈ 2^46.x.
 * Measured on node-seal 7 at n = 32768, t of 25 bits (square, relinearize, mod-switch,
 * each chain under fresh keys; packages/bench/results/bgv-chains.md): G is fixed by the key
 * set (every fresh encryption under one key set gives the same budgets) and spreads over
 * 5–6 bits between key sets. Levels of t + ⌈1.5·log2 n⌉ − 1 bits (47) left the typical key set
 * 2 bits of margin; key sets whose G is 2 bits larger (2–5 % of them) ran out at the 7th or
 * 8th square, and that ciphertext really decrypted wrong. One bit more moved the typical
 * margin by one bit; a larger first prime nothing (the noise has already grown). So each
 * level gets 4 bits more (BGV_LEVEL_BITS = 3): to diverge, a key set's G must be 6 bits
 * above the typical one. Of 1400 key sets (n = 8192 and 32768) the worst was 2 bits above,
 * and the count falls 5–6 times per bit there: even extrapolated that slowly, 6 bits is
 * past the 99.99th percentile. The last level needs t + log2(n) + 7 (one bit less
 * failed); one more to spare.
 */
function bgvAttempt(needs: ParamsNeeds, n: number, max: number): Attempt {
  const t = needs.plainBits ?? 0
  const { depth } = needs
  if (!plainBitsFit(n, t)) return { fits: false, why: 'prime', n }
  const log2n = Math.log2(n)
  const first = t + log2n + BGV_LAST_LEVEL_BITS
  const level = t + Math.ceil(1.5 * log2n) + BGV_LEVEL_BITS
  if (first > PRIME_BITS_MAX || depth + 2 > PRIME_COUNT_MAX) return { fits: false, why: 'prime', n }
  const data = [first, ...Array.from({ length: depth }, () => level)]
  if (level > PRIME_BITS_MAX && depth > 0) return { fits: false, why: 'prime', n }
  const special = Math.max(...data)
  const chain = [...data, special]
  const total = chain.reduce((a, b) => a + b, 0)
  if (total > max) return { fits: false, why: 'budget', n, total, max }
  if (coeffPrimesProblem(n, chain, { batchingBits: t })) return { fits: false, why: 'prime', n }
  return {
    fits: true,
    suggestion: {
      ok: true,
      params: {
        scheme: 'bgv',
        polyModulusDegree: n,
        coeffModulus: chain,
        plainModulus: { batchingBits: t },
        security: needs.security,
      },
      reasons: [
        `n = ${n}: the smallest ring with ${needs.slots} slot${needs.slots === 1 ? '' : 's'} and a ${t}-bit batching prime whose ${needs.security} budget (${max} bits) fits the ${total}-bit coefficient modulus.`,
        `BGV, as asked, for whole numbers; a ${t}-bit batching plain modulus holds values in ±2^${t - 1}.`,
        `${depth} prime${depth === 1 ? '' : 's'} of ${level} bits, one per multiplication: relinearize and mod-switch after each, and the noise drops with the prime.`,
        `A first prime of ${first} bits decrypts the last level; a special prime of ${special} bits lets you make relinearization and Galois keys.`,
      ],
      totalBits: total,
      maxBits: max,
    },
  }
}

/** BFV: data primes that hold the noise of `depth` multiplications, as few as fit. */
function integerAttempt(needs: ParamsNeeds, n: number, max: number): Attempt {
  if (needs.scheme === 'bgv') return bgvAttempt(needs, n, max)
  const scheme = 'bfv'
  const t = needs.plainBits ?? 0
  const { depth } = needs
  if (!plainBitsFit(n, t)) return { fits: false, why: 'prime', n }
  const log2n = Math.log2(n)
  // Measured on node-seal 7 (repeated square + relinearize): a product costs about t + log2(n)
  // bits of noise budget; a fresh ciphertext t + log2(n) + 2 (parseParams' rule), plus a bit to spare.
  const fresh = t + log2n + 3
  const dataBits = Math.max(fresh + depth * (t + log2n), log2n + 3)
  const minPrime = log2n + 2
  // The fewest primes first (faster); more, smaller primes shrink the special prime, so
  // a chain that does not fit with few may fit with more. Sizes SEAL cannot make (too few
  // primes of a size, or a prime that would be t itself) are skipped.
  // The total is dataBits + ceil(dataBits / count): start at the fewest primes that fit the
  // budget, stop where a prime would be too small for n or SEAL's prime count runs out.
  const fewest = Math.max(Math.ceil(dataBits / PRIME_BITS_MAX), Math.ceil(dataBits / Math.max(1, max - dataBits)))
  const most = Math.min(Math.floor(dataBits / minPrime), PRIME_COUNT_MAX - 1)
  for (let count = fewest; count <= most && dataBits < max; count++) {
    const data = splitPrimes(dataBits, count)
    const special = Math.max(...data)
    const chain = [...data, special]
    const total = dataBits + special
    if (total > max) continue
    if (coeffPrimesProblem(n, chain, { batchingBits: t })) continue
    return {
      fits: true,
      suggestion: {
        ok: true,
        params: {
          scheme,
          polyModulusDegree: n,
          coeffModulus: chain,
          plainModulus: { batchingBits: t },
          security: needs.security,
        },
        reasons: [
          `n = ${n}: the smallest ring with ${needs.slots} slot${needs.slots === 1 ? '' : 's'} and a ${t}-bit batching prime whose ${needs.security} budget (${max} bits) fits the ${total}-bit coefficient modulus.`,
          `BFV, because the values are whole numbers; a ${t}-bit batching plain modulus holds values in ±2^${t - 1}.`,
          `${dataBits} bits of data primes (split into ${data.join(' + ')}): a fresh ciphertext uses about ${fresh} bits of noise budget and each of the ${depth} multiplication${depth === 1 ? '' : 's'} about ${t + log2n}.`,
          `A special prime of ${special} bits (as large as the largest data prime) lets you make relinearization and Galois keys.`,
        ],
        totalBits: total,
        maxBits: max,
      },
    }
  }
  // The least any split needs: the most primes, so the smallest special prime.
  const total = dataBits + Math.ceil(dataBits / Math.max(1, most))
  return { fits: false, why: 'budget', n, total, max }
}

function ckksAttempt(needs: ParamsNeeds, n: number, max: number): Attempt {
  const { depth } = needs
  const scaleBits = (needs.precisionBits ?? 0) + CKKS_NOISE_BITS
  const outer = Math.min(PRIME_BITS_MAX, scaleBits + CKKS_INTEGER_BITS)
  const chain = [outer, ...Array.from({ length: depth }, () => scaleBits), outer]
  const total = chain.reduce((a, b) => a + b, 0)
  // CoeffModulus.Create needs enough primes ≡ 1 (mod 2n) of each size: a prime has more
  // bits than 2n, and a small scale has few candidates (fewer still at a larger n).
  if (scaleBits <= Math.log2(n) + 1 || coeffPrimesProblem(n, chain)) return { fits: false, why: 'prime', n }
  if (total > max) return { fits: false, why: 'budget', n, total, max }
  return {
    fits: true,
    suggestion: {
      ok: true,
      params: { scheme: 'ckks', polyModulusDegree: n, coeffModulus: chain, scaleBits, security: needs.security },
      reasons: [
        `n = ${n}: the smallest ring with ${needs.slots} slot${needs.slots === 1 ? '' : 's'} whose ${needs.security} budget (${max} bits) fits the ${total}-bit coefficient modulus.`,
        `CKKS, because the values are real numbers; scale 2^${scaleBits}: about ${CKKS_NOISE_BITS} of its bits go to noise, leaving the ${needs.precisionBits} you asked for.`,
        `${depth} middle prime${depth === 1 ? '' : 's'} of ${scaleBits} bits: each multiplication is rescaled by one, returning to the same scale.`,
        `Outer primes of ${outer} bits: the first holds the integer part of a result, the last (the special prime) lets you make relinearization and Galois keys.`,
      ],
      totalBits: total,
      maxBits: max,
    },
  }
}

/** The first ring degree (smallest) whose chain SEAL can build and the budget holds, or every attempt. */
function firstFit(needs: ParamsNeeds): Success | Failure[] {
  const table = MAX_COEFF_BITS[needs.security]
  const ckks = needs.precisionBits !== undefined
  const attempts: Failure[] = []
  for (const n of POLY_MODULUS_DEGREES) {
    if ((ckks ? n / 2 : n) < needs.slots) continue
    const max = table[n] ?? 0
    const attempt = ckks ? ckksAttempt(needs, n, max) : integerAttempt(needs, n, max)
    if (attempt.fits) return attempt.suggestion
    attempts.push(attempt)
  }
  return attempts
}

// Whether needs can be met, by needs: refusals ask about their neighbours (other bit sizes,
// fewer multiplications) and a form re-asks on every keystroke. Booleans only, and reset
// when full, so it stays small.
const fitting = new Map<string, boolean>()
function fits(needs: ParamsNeeds): boolean {
  const key = `${needs.scheme}:${needs.security}:${needs.depth}:${needs.slots}:${needs.plainBits}:${needs.precisionBits}`
  let answer = fitting.get(key)
  if (answer === undefined) {
    if (fitting.size >= 100_000) fitting.clear()
    answer = !Array.isArray(firstFit(needs))
    fitting.set(key, answer)
  }
  return answer
}

/**
 * What would work instead, nearest first: other bit sizes (either way — fewer bits is
 * not always better, a batching prime of the size must exist), fewer multiplications,
 * a lower security level.
 */
function alternativesTo(needs: ParamsNeeds): string[] {
  const ckks = needs.precisionBits !== undefined
  const asked = (ckks ? needs.precisionBits : needs.plainBits) ?? 0
  const withBits = (bits: number): ParamsNeeds =>
    ckks ? { ...needs, precisionBits: bits } : { ...needs, plainBits: bits }
  const lowest = ckks ? 1 : minPlainBits(POLY_MODULUS_DEGREES[0])
  const highest = ckks ? SCALE_BITS_MAX - CKKS_NOISE_BITS : PRIME_BITS_MAX
  const range = (from: number, to: number, step: number) =>
    Array.from({ length: Math.max(0, Math.floor((to - from) / step) + 1) }, (_, i) => from + i * step)
  const below = range(asked - 1, lowest, -1).find((bits) => fits(withBits(bits)))
  const above = range(asked + 1, highest, 1).find((bits) => fits(withBits(bits)))
  const sizes = [below, above].filter((bits): bits is number => bits !== undefined)
  const noun = ckks ? 'precision bits' : 'plaintext bits'
  const out: string[] = []
  if (sizes.length > 0) out.push(`${sizes.join(' or ')} ${noun}`)
  const depth = range(needs.depth - 1, 0, -1).find((d) => fits({ ...needs, depth: d }))
  if (depth !== undefined) out.push(`at most ${depth} multiplication${depth === 1 ? '' : 's'} in a row`)
  const order = ['tc128', 'tc192', 'tc256'] as const
  const level = order.slice(0, order.indexOf(needs.security)).find((security) => fits({ ...needs, security }))
  if (level) out.push(`security ${level}`)
  return out
}

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

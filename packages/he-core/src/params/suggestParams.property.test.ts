import { beforeAll, describe, expect, it } from 'vitest'
import { withScope } from '../scope/SealScope.ts'
import { loadSeal, type Seal } from '../seal/loadSeal.ts'
import type { ParamsNeeds } from './ParamsNeeds.ts'
import { POLY_MODULUS_DEGREES, PRIME_COUNT_MAX } from './ParamsSpec.ts'
import { parseParams } from './parseParams.ts'
import { suggestParams } from './suggestParams.ts'

/*
 * The assistant's whole input space, enumerated: every depth the form accepts, every
 * plaintext / precision bit size (and one past each end), each security level, and
 * values per ciphertext on both sides of every ring's slot count (the only thing the
 * number of values changes is which rings are large enough).
 */
const SECURITY = ['tc128', 'tc192', 'tc256'] as const
const DEPTHS = Array.from({ length: 31 }, (_, i) => i)
const PLAIN_BITS = Array.from({ length: 51 }, (_, i) => 11 + i) // 11…61
const PRECISION_BITS = Array.from({ length: 42 }, (_, i) => i) // 0…41
const slotsFor = (ckks: boolean) => [
  1,
  ...POLY_MODULUS_DEGREES.flatMap((n) => (ckks ? [n / 2, n / 2 + 1] : [n, n + 1])),
]

function* inputSpace(): Generator<ParamsNeeds> {
  for (const security of SECURITY) {
    for (const depth of DEPTHS) {
      for (const slots of slotsFor(false)) {
        for (const plainBits of PLAIN_BITS) {
          yield { depth, slots, plainBits, security }
          yield { depth, slots, plainBits, security, scheme: 'bgv' }
        }
      }
      for (const slots of slotsFor(true)) {
        for (const precisionBits of PRECISION_BITS) yield { depth, slots, precisionBits, security }
      }
    }
  }
}

let seal: Seal

/** SEAL's answers, each asked once: the primes it makes for (n, bit sizes), or that it refuses. */
const created = new Map<string, bigint[] | 'refused'>()
function sealPrimes(n: number, bits: readonly number[]): bigint[] | 'refused' {
  const key = `${n}:${bits.join(',')}`
  const known = created.get(key)
  if (known !== undefined) return known
  let primes: bigint[] | 'refused'
  try {
    primes = withScope((scope) =>
      seal.jsArrayFromVecModulus(scope.track(seal.CoeffModulus.Create(n, Int32Array.from(bits)))).map(BigInt),
    )
  } catch {
    primes = 'refused'
  }
  created.set(key, primes)
  return primes
}

/** SEAL's `PlainModulus.Batching(n, bits)`: the plain modulus it makes, or that it refuses. */
function sealBatchingPrime(n: number, bits: number): bigint | undefined {
  if (bits < Math.log2(2 * n) + 2) return undefined // sealbox's own floor (parseParams)
  const primes = sealPrimes(n, [bits])
  return primes === 'refused' ? undefined : primes[0]
}

const maxBits = new Map<string, number>()
function sealMaxBits(n: number, security: ParamsNeeds['security']): number {
  const key = `${n}:${security}`
  let max = maxBits.get(key)
  if (max === undefined) {
    max = seal.CoeffModulus.MaxBitCount(n, seal.SecLevelType[security])
    maxBits.set(key, max)
  }
  return max
}

interface Suggested {
  scheme: string
  polyModulusDegree: number
  coeffModulus: number[]
  security?: string
  plainModulus?: { batchingBits: number } | { value: number }
}

/** Builds the context in SEAL itself and reports what SEAL says of it. */
function buildInSeal(params: Suggested) {
  return buildWith(params as Parameters<typeof buildWith>[0])
}

function buildWith(params: {
  scheme: string
  polyModulusDegree: number
  coeffModulus: number[]
  security: ParamsNeeds['security']
  plainModulus?: unknown
}) {
  return withScope((scope) => {
    const n = params.polyModulusDegree
    const parms = scope.track(new seal.EncryptionParameters(seal.SchemeType[params.scheme as 'bfv' | 'bgv' | 'ckks']))
    parms.setPolyModulusDegree(n)
    const coeff = scope.track(seal.CoeffModulus.Create(n, Int32Array.from(params.coeffModulus)))
    parms.setCoeffModulus(coeff)
    const plain = params.plainModulus as { batchingBits: number } | undefined
    if (plain) parms.setPlainModulus(scope.track(seal.PlainModulus.Batching(n, plain.batchingBits)))
    const context = scope.track(new seal.SEALContext(parms, false, seal.SecLevelType[params.security ?? 'tc128']))
    const data = scope.track(context.firstContextData())
    return { set: context.parametersSet(), batching: scope.track(data.qualifiers()).usingBatching }
  })
}

/** Splits `total` into `count` sizes, as even as possible. */
function split(total: number, count: number): number[] {
  const base = Math.floor(total / count)
  return Array.from({ length: count }, (_, i) => base + (i < total - base * count ? 1 : 0))
}

/**
 * The oracle for a refusal, by exhaustive search: is there any ring n with the slots,
 * and any split of the bits the needs require into primes SEAL makes (BFV: any number
 * of data primes and a special prime as large as the largest, with a batching prime of
 * exactly the asked size that is none of them; CKKS: one scale-sized prime per
 * multiplication between two outer primes), within SEAL's own secure budget? The bits
 * required are the assistant's noise model (measured; see integerAttempt.ts, ckksAttempt.ts), written
 * out again here in plain arithmetic.
 */
function anyParamsMeet(needs: ParamsNeeds): boolean {
  for (const n of POLY_MODULUS_DEGREES) {
    const log2n = Math.log2(n)
    const max = sealMaxBits(n, needs.security)
    if (needs.precisionBits !== undefined) {
      if (n / 2 < needs.slots) continue
      const scale = needs.precisionBits + 20
      const outer = Math.min(60, scale + 20)
      const chain = [outer, ...Array<number>(needs.depth).fill(scale), outer]
      if (chain.reduce((a, b) => a + b, 0) > max || scale <= log2n + 1) continue
      if (sealPrimes(n, chain) !== 'refused') return true
      continue
    }
    if (n < needs.slots) continue
    const t = needs.plainBits ?? 0
    const plain = sealBatchingPrime(n, t)
    if (plain === undefined) continue
    const dataBits = Math.max(t + log2n + 3 + needs.depth * (t + log2n), log2n + 3)
    for (let count = 1; count < PRIME_COUNT_MAX; count++) {
      // The arithmetic first (the largest prime is ceil(dataBits / count)): SEAL only for splits that fit.
      if (Math.floor(dataBits / count) < log2n + 2) break
      if (dataBits + Math.ceil(dataBits / count) > max) continue
      const data = split(dataBits, count)
      const special = Math.max(...data)
      if (special > 60 || Math.min(...data) < log2n + 2 || dataBits + special > max) continue
      const primes = sealPrimes(n, [...data, special])
      if (primes !== 'refused' && !primes.includes(plain)) return true
    }
  }
  return false
}

/**
 * BGV's oracle: at any ring with the slots and a batching prime of the size, the levelled
 * chain of the measured model (see bgvAttempt.ts: one prime of t + ⌈1.5·log2 n⌉ + 3 bits per
 * multiplication, a first prime of t + log2 n + 8, a special prime as large as any) — at most 60
 * bits a prime, within SEAL's budget, every prime made by SEAL and none equal to t.
 */
function anyBgvChainMeets(needs: ParamsNeeds): boolean {
  const t = needs.plainBits ?? 0
  for (const n of POLY_MODULUS_DEGREES) {
    if (n < needs.slots) continue
    const plain = sealBatchingPrime(n, t)
    if (plain === undefined) continue
    const log2n = Math.log2(n)
    const first = t + log2n + 8
    const level = t + Math.ceil(1.5 * log2n) + 3
    if (first > 60 || (needs.depth > 0 && level > 60) || needs.depth + 2 > PRIME_COUNT_MAX) continue
    const levels = Array<number>(needs.depth).fill(level)
    const chain = [first, ...levels, Math.max(first, ...levels)]
    if (chain.reduce((a, b) => a + b, 0) > sealMaxBits(n, needs.security)) continue
    const primes = sealPrimes(n, chain)
    if (primes !== 'refused' && !primes.includes(plain)) return true
  }
  return false
}

describe('suggestParams over its whole input space', () => {
  beforeAll(async () => {
    seal = await loadSeal()
  })

  it('every suggestion builds in SEAL with batching; every refusal is one no parameters could meet', () => {
    const suggestions = new Map<string, { params: Parameters<typeof buildInSeal>[0]; needs: ParamsNeeds }>()
    // Every input's checks are plain conditions; each one that fails is named here and the list
    // must stay empty. One `expect` per input (~170,000 inputs, several checks each) cost more
    // CPU than the assistant itself.
    const violations: string[] = []
    const check = (holds: boolean, what: () => string) => {
      if (!holds) violations.push(what())
    }
    let refusals = 0
    let asked = 0
    for (const needs of inputSpace()) {
      asked++
      const bgv = needs.plainBits !== undefined && needs.scheme === 'bgv'
      const result = suggestParams(needs)
      if (result.ok) {
        const params = result.params
        const at = () => JSON.stringify({ needs, params })
        let parses = true
        try {
          parseParams(params)
        } catch {
          parses = false
        }
        check(parses, () => `parseParams throws: ${at()}`)
        const n = params.polyModulusDegree
        check((params.scheme === 'ckks' ? n / 2 : n) >= needs.slots, () => `too few slots: ${at()}`)
        // SEAL makes every prime, the plain modulus is none of them, and the total is within its budget.
        const primes = sealPrimes(n, params.coeffModulus)
        check(primes !== 'refused', () => `SEAL refuses the primes: ${at()}`)
        const total = params.coeffModulus.reduce((a, b) => a + b, 0)
        check(total <= sealMaxBits(n, needs.security), () => `over SEAL's budget: ${at()}`)
        if (params.plainModulus && 'batchingBits' in params.plainModulus) {
          const t = sealBatchingPrime(n, params.plainModulus.batchingBits)
          check(t !== undefined, () => `no batching prime: ${at()}`)
          check(t?.toString(2).length === (needs.plainBits ?? 0), () => `plain modulus of another size: ${at()}`)
          check(primes === 'refused' || t === undefined || !primes.includes(t), () => `t is a data prime: ${at()}`)
        }
        suggestions.set(JSON.stringify(params), { params, needs })
        continue
      }
      refusals++
      const problems = result.problems.map((p) => p.message).join(' ')
      // CKKS precision outside 1…40 is outside the form's domain (the scale is at most 2^60).
      const precision = needs.precisionBits
      // And with no multiplication, the scale must be below the one data prime (≤ 60 bits).
      if (precision !== undefined && (precision < 1 || precision > 40 || (needs.depth === 0 && precision + 20 >= 60))) {
        check(
          result.problems.some((p) => p.field === 'precisionBits'),
          () => `refused ${JSON.stringify(needs)} without naming precisionBits: ${problems}`,
        )
        continue
      }
      const exists = bgv ? anyBgvChainMeets(needs) : anyParamsMeet(needs)
      check(!exists, () => `refused ${JSON.stringify(needs)} but parameters exist: ${problems}`)
      // A refusal never asks for fewer bits when fewer bits cannot help.
      const fewer = /ask for fewer (plaintext|precision) bits/.test(problems)
      check(!fewer, () => `refused ${JSON.stringify(needs)} asking for fewer bits: ${problems}`)
    }
    expect(violations.slice(0, 20), `${violations.length} inputs break the properties`).toEqual([])
    expect(asked).toBe(3 * 31 * (13 * 51 * 2 + 13 * 42))
    expect(refusals).toBeGreaterThan(0)
    // Build the deepest chain SEAL is asked for at each scheme and ring: the most primes
    // of each size, so the one most likely to run out; SEAL confirms it is set and batches.
    const deepest = new Map<string, Parameters<typeof buildInSeal>[0]>()
    for (const { params } of suggestions.values()) {
      const key = `${params.scheme}:${params.polyModulusDegree}`
      const current = deepest.get(key)
      if (!current || params.coeffModulus.length > current.coeffModulus.length) deepest.set(key, params)
    }
    // n = 1024 (27 bits) holds no suggestion, n = 2048 (54 bits) no CKKS chain (two outer primes of 41+ bits)
    // nor BGV chain (a first and a special prime of 33+ bits).
    expect([...deepest.keys()].sort()).toEqual(
      [
        ...POLY_MODULUS_DEGREES.slice(1).map((n) => `bfv:${n}`),
        ...POLY_MODULUS_DEGREES.slice(2).map((n) => `bgv:${n}`),
        ...POLY_MODULUS_DEGREES.slice(2).map((n) => `ckks:${n}`),
      ].sort(),
    )
    for (const params of deepest.values()) {
      expect(buildInSeal(params), JSON.stringify(params)).toEqual({ set: true, batching: true })
    }
  }, 600_000)
})

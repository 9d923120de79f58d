import { HeError } from '../errors/HeError.ts'
import { BFV_DEFAULT_BITS, CKKS_PRESETS, MAX_COEFF_BITS } from './coeffModulusTables.ts'
import { type ParamsInput, ParamsSpec, POLY_MODULUS_DEGREES, type ResolvedParams } from './ParamsSpec.ts'

/** Options for `parseParams`. */
export interface ParseParamsOptions {
  /** Allow `security: 'none'` (insecure parameters; only the benchmark asks for this). */
  allowInsecure?: boolean
}

const DEFAULT_PLAIN_BITS = 20
/** SEAL's limits on a single coefficient-modulus prime (SEAL_USER_MOD_BIT_COUNT_MIN/MAX). */
const PRIME_BITS_MIN = 2
const PRIME_BITS_MAX = 60
const PRIME_COUNT_MAX = 64

function invalid(field: string, message: string, details: Record<string, unknown> = {}): HeError {
  return new HeError('INVALID_PARAMS', `${field}: ${message}`, { details: { field, ...details } })
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0)
}

function isPrime(value: number): boolean {
  if (value < 2) return false
  if (value % 2 === 0) return value === 2
  // Trial division is fine: explicit plain moduli are at most 2^53 here, and in
  // practice below 2^32 (≤ 65536 divisions).
  for (let d = 3; d * d <= value; d += 2) if (value % d === 0) return false
  return true
}

/**
 * Validates a parameter spec and resolves its defaults, before SEAL is involved.
 * Every rule SEAL would otherwise only report as `parametersSet() === false` is
 * checked here and reported as `HeError('INVALID_PARAMS')` naming the field and
 * the limit. Pure and synchronous: safe to call on every keystroke.
 */
export function parseParams(input: ParamsInput | unknown, options: ParseParamsOptions = {}): ResolvedParams {
  const parsed = ParamsSpec.safeParse(input)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const field = issue?.path.join('.') || 'params'
    throw new HeError('INVALID_PARAMS', `${field}: ${issue?.message ?? 'invalid'}`, {
      cause: parsed.error,
      details: { field },
    })
  }
  const spec = parsed.data
  const n = spec.polyModulusDegree
  if (!(POLY_MODULUS_DEGREES as readonly number[]).includes(n)) {
    throw invalid('polyModulusDegree', `${n} is not supported; use one of ${POLY_MODULUS_DEGREES.join(', ')}`)
  }
  if (spec.security === 'none' && !options.allowInsecure) {
    throw invalid(
      'security',
      "'none' disables SEAL's security check (insecure parameters); use tc128, tc192 or tc256 unless you are benchmarking",
    )
  }
  // SEAL's benchmark pairs security 'none' with the 128-bit default chain.
  const tableLevel = spec.security === 'none' ? 'tc128' : spec.security

  let coeffModulusBits: number[]
  let presetScaleBits: number | undefined
  if (spec.coeffModulus === 'default') {
    const preset = spec.scheme === 'ckks' && tableLevel === 'tc128' ? CKKS_PRESETS[n] : undefined
    coeffModulusBits = preset ? [...preset.bits] : [...(BFV_DEFAULT_BITS[tableLevel][n] ?? [])]
    presetScaleBits = preset?.scaleBits
  } else {
    coeffModulusBits = spec.coeffModulus
  }

  if (coeffModulusBits.length > PRIME_COUNT_MAX) {
    throw invalid('coeffModulus', `${coeffModulusBits.length} primes; SEAL allows at most ${PRIME_COUNT_MAX}`)
  }
  // A prime ≡ 1 (mod 2n) needs more bits than 2n has.
  const minPrimeBits = Math.max(PRIME_BITS_MIN, Math.log2(2 * n) + 1)
  coeffModulusBits.forEach((bits, index) => {
    if (bits > PRIME_BITS_MAX || bits < minPrimeBits) {
      throw invalid(
        `coeffModulus[${index}]`,
        `${bits}-bit prime is out of range; at n=${n} each prime needs ${minPrimeBits}…${PRIME_BITS_MAX} bits`,
        { index, bits },
      )
    }
  })
  const totalBits = sum(coeffModulusBits)
  if (spec.security !== 'none') {
    const maxBits = MAX_COEFF_BITS[spec.security][n] ?? 0
    if (totalBits > maxBits) {
      throw invalid(
        'coeffModulus',
        `coeff modulus totals ${totalBits} bits; n=${n} at ${spec.security} allows at most ${maxBits}`,
        { totalBits, maxBits },
      )
    }
  }
  // Data primes: all but the special (key-switching) prime, when there is one.
  const dataBits = coeffModulusBits.length > 1 ? sum(coeffModulusBits.slice(0, -1)) : totalBits

  let plainModulus = spec.plainModulus
  let scaleBits = spec.scaleBits
  if (spec.scheme === 'ckks') {
    if (plainModulus !== undefined) throw invalid('plainModulus', 'CKKS has no plain modulus; remove it')
    scaleBits ??= presetScaleBits ?? Math.max(1, (coeffModulusBits[0] ?? 20) - 10)
    if (scaleBits >= dataBits) {
      throw invalid(
        'scaleBits',
        `scale 2^${scaleBits} does not fit the ${dataBits}-bit data modulus; use fewer than ${dataBits} bits`,
        { scaleBits, dataBits },
      )
    }
  } else {
    if (scaleBits !== undefined) throw invalid('scaleBits', `${spec.scheme.toUpperCase()} has no scale; remove it`)
    plainModulus ??= { batchingBits: DEFAULT_PLAIN_BITS }
    let plainBits: number
    if ('batchingBits' in plainModulus) {
      plainBits = plainModulus.batchingBits
      const minBits = Math.ceil(Math.log2(2 * n)) + 2
      if (plainBits < minBits || plainBits > PRIME_BITS_MAX) {
        throw invalid(
          'plainModulus.batchingBits',
          `${plainBits} bits is out of range; batching at n=${n} needs a prime ≡ 1 (mod ${2 * n}), so ${minBits}…${PRIME_BITS_MAX} bits`,
        )
      }
    } else {
      const t = plainModulus.value
      if (t < 2 || t > Number.MAX_SAFE_INTEGER) throw invalid('plainModulus.value', `${t} is out of range`)
      if (!isPrime(t) || t % (2 * n) !== 1) {
        throw invalid(
          'plainModulus.value',
          `${t} is not a prime ≡ 1 (mod ${2 * n}); batching (which sealbox uses) needs one, e.g. 65537 for n ≤ 32768`,
        )
      }
      plainBits = Math.ceil(Math.log2(t + 1))
    }
    // Fresh BFV/BGV ciphertexts keep roughly log2(q_data) - log2(t) - log2(n) - 2 bits of
    // noise budget; at zero they decrypt to garbage without any error (node-seal #132).
    const freshBudget = dataBits - plainBits - Math.log2(n) - 2
    if (freshBudget <= 0) {
      throw invalid(
        'plainModulus',
        `a ${plainBits}-bit plain modulus leaves no noise budget with a ${dataBits}-bit data modulus at n=${n}: fresh ciphertexts would decrypt wrongly; use at most ${Math.floor(dataBits - Math.log2(n) - 3)} bits or a larger n`,
        { plainBits, dataBits },
      )
    }
  }

  return {
    scheme: spec.scheme,
    polyModulusDegree: n,
    coeffModulusBits,
    plainModulus,
    scaleBits,
    security: spec.security,
  }
}

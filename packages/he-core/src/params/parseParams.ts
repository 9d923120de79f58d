import { isPrime } from '@sealbox/he-ring'
import { HeError } from '../errors/HeError.ts'
import { BFV_DEFAULT_BITS, CKKS_PRESETS, MAX_COEFF_BITS } from './coeffModulusTables.ts'
import { coeffPrimesProblem, plainBitsProblem } from './modulusProblems.ts'
import {
  type ParamsInput,
  ParamsSpec,
  POLY_MODULUS_DEGREES,
  PRIME_BITS_MAX,
  PRIME_BITS_MIN,
  PRIME_COUNT_MAX,
  type ResolvedParams,
} from './ParamsSpec.ts'

/** Options for `parseParams`. */
export interface ParseParamsOptions {
  /** Allow `security: 'none'` (insecure parameters; only the benchmark asks for this). */
  allowInsecure?: boolean
}

const DEFAULT_PLAIN_BITS = 20

function invalid(field: string, message: string, details: Record<string, unknown> = {}): HeError {
  return new HeError('INVALID_PARAMS', `${field}: ${message}`, { details: { field, ...details } })
}

interface Issue {
  path: PropertyKey[]
  message: string
  code?: string
  errors?: Issue[][]
}

/**
 * The issue a person should see. A union (`coeffModulus`, `plainModulus`) reports
 * "Invalid input" with one issue list per branch: take the branch that came closest —
 * fewest issues, then the deepest path, then not a mere literal mismatch — with its
 * path made absolute.
 */
function specificIssue(issue: Issue | undefined): Issue | undefined {
  if (issue?.code !== 'invalid_union' || !issue.errors?.length) return issue
  const depth = (branch: Issue[]) => Math.max(...branch.map((i) => i.path.length))
  // A literal branch ('default') that merely did not match is the least telling.
  const literal = (branch: Issue[]) => (branch[0]?.code === 'invalid_value' ? 1 : 0)
  const best = [...issue.errors].sort(
    (a, b) => a.length - b.length || depth(b) - depth(a) || literal(a) - literal(b),
  )[0]
  const first = best?.[0]
  if (!first) return issue
  return specificIssue({ ...first, path: [...issue.path, ...first.path] })
}

/** A zod issue path as a person writes it: `coeffModulus[1]`, `plainModulus.value`. */
function fieldOf(path: readonly PropertyKey[]): string {
  const text = path.map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i > 0 ? '.' : ''}${String(part)}`))
  return text.join('') || 'params'
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0)
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
    const issue = specificIssue(parsed.error.issues[0])
    const field = fieldOf(issue?.path ?? [])
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
  const missing = coeffPrimesProblem(n, coeffModulusBits)
  if (missing) throw invalid(`coeffModulus[${missing.index}]`, missing.message, { index: missing.index })
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
      const problem = plainBitsProblem(n, plainBits)
      if (problem) throw invalid('plainModulus.batchingBits', problem, { plainBits })
    } else {
      const t = plainModulus.value
      if (t < 2 || t > Number.MAX_SAFE_INTEGER) throw invalid('plainModulus.value', `${t} is out of range`)
      // The cheap congruence first; Miller–Rabin (microseconds even near 2^53) only then.
      if (t % (2 * n) !== 1 || !isPrime(t)) {
        throw invalid(
          'plainModulus.value',
          `${t} is not a prime ≡ 1 (mod ${2 * n}); batching (which sealbox uses) needs one, e.g. 65537 for n ≤ 32768`,
        )
      }
      plainBits = Math.ceil(Math.log2(t + 1))
    }
    const clash = coeffPrimesProblem(n, coeffModulusBits, plainModulus)
    if (clash) throw invalid(`coeffModulus[${clash.index}]`, clash.message, { index: clash.index })
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

import type { SchemeName } from '@sealbox/he-core'

/** Numbers read from a typed list, or the first problem in words. */
export type ParsedValues = { ok: true; values: bigint[] | number[] } | { ok: false; message: string }

/** What the numbers must fit. */
export interface ValueLimits {
  scheme: SchemeName
  slotCount: number
  /** BFV/BGV: the plain modulus t (values must lie in [−(t−1)/2, (t−1)/2]). */
  plainModulus?: bigint
  /** CKKS: the largest magnitude a value may have (see `ckksValueBound`). */
  ckksBound?: { max: number; firstPrimeBits: number; scaleBits: number }
}

/**
 * CKKS: how large a value may be and still decrypt right at the last level, where only
 * the first prime is left: |v| · 2^scaleBits must stay under half of it, so
 * |v| < 2^(firstPrimeBits − scaleBits − 1). SEAL itself encodes far larger values (it
 * checks against every prime at once), which then decrypt to garbage after rescaling:
 * 1e15 was accepted.
 */
export function ckksValueBound(params: {
  coeffModulusBits: readonly number[]
  scaleBits: number | undefined
}): ValueLimits['ckksBound'] {
  const firstPrimeBits = params.coeffModulusBits[0]
  if (firstPrimeBits === undefined || params.scaleBits === undefined) return undefined
  return { max: 2 ** (firstPrimeBits - params.scaleBits - 1), firstPrimeBits, scaleBits: params.scaleBits }
}

const INTEGER = /^[+-]?\d+$/

/**
 * Reads "1, 2, -3" (commas, spaces or new lines between values) for the scheme:
 * whole numbers within ±(t−1)/2 for BFV/BGV (SEAL would wrap others silently),
 * finite decimals for CKKS; at most one value per slot.
 */
export function parseValues(text: string, limits: ValueLimits): ParsedValues {
  const parts = text
    .split(/[\s,;]+/)
    .map((part) => part.trim())
    .filter((part) => part !== '')
  if (parts.length === 0) return { ok: false, message: 'Type at least one number, e.g. 1, 2, 3' }
  if (parts.length > limits.slotCount) {
    return { ok: false, message: `${parts.length} values do not fit the ${limits.slotCount} slots of these parameters` }
  }
  if (limits.scheme === 'ckks') {
    const values: number[] = []
    for (const [index, part] of parts.entries()) {
      const value = Number(part)
      if (!Number.isFinite(value)) return { ok: false, message: `Value ${index + 1} ("${part}") is not a number` }
      const bound = limits.ckksBound
      if (bound && Math.abs(value) >= bound.max) {
        return {
          ok: false,
          message: `Value ${index + 1} (${part}) is too large: with a ${bound.firstPrimeBits}-bit first prime and a scale of 2^${bound.scaleBits}, CKKS values must lie strictly between −${bound.max} and ${bound.max} to decrypt right after rescaling (a larger first prime or a smaller scale allows more)`,
        }
      }
      values.push(value)
    }
    return { ok: true, values }
  }
  const half = limits.plainModulus === undefined ? undefined : (limits.plainModulus - 1n) / 2n
  const values: bigint[] = []
  for (const [index, part] of parts.entries()) {
    if (!INTEGER.test(part)) {
      return {
        ok: false,
        message: `Value ${index + 1} ("${part}") is not a whole number: ${limits.scheme.toUpperCase()} encrypts integers (use CKKS for decimals)`,
      }
    }
    const value = BigInt(part)
    if (half !== undefined && (value > half || value < -half)) {
      return {
        ok: false,
        message: `Value ${index + 1} (${part}) is out of range: with t = ${limits.plainModulus} values must lie between ${-half} and ${half}`,
      }
    }
    values.push(value)
  }
  return { ok: true, values }
}

/** A decoded value for display: integers as is, CKKS values rounded to what the scheme can promise. */
export function formatValue(value: bigint | number): string {
  if (typeof value === 'bigint') return value.toString()
  if (Number.isInteger(value)) return value.toString()
  const rounded = Number(value.toFixed(4))
  return Object.is(rounded, -0) ? '0' : String(rounded)
}

import type { Plaintext } from 'node-seal/throws'
import { HeError } from '../errors/HeError.ts'
import { sealCall } from '../errors/toHeError.ts'
import type { HeContext } from '../params/HeContext.ts'
import type { SealScope } from '../scope/SealScope.ts'

/** How batch values map to residues mod t. */
export interface BatchCodecOptions {
  /**
   * `true` (default): values in [−(t−1)/2, (t−1)/2], decoded centred — what you
   * encode is what you decode. `false`: values in [0, t−1], decoded in [0, t).
   */
  signed?: boolean
}

function requireBatching(ctx: HeContext) {
  const encoder = ctx.batchEncoder
  const t = ctx.plainModulus
  if (!encoder || t === undefined) {
    throw new HeError('SCHEME_MISMATCH', `batch encoding needs BFV or BGV; these parameters are ${ctx.scheme}`)
  }
  return { encoder, t }
}

/** The range of values a batch plaintext holds exactly under `options`. */
export function batchRange(ctx: HeContext, options: BatchCodecOptions = {}): { min: bigint; max: bigint } {
  const { t } = requireBatching(ctx)
  return options.signed === false ? { min: 0n, max: t - 1n } : { min: -((t - 1n) / 2n), max: (t - 1n) / 2n }
}

/**
 * Converts and range-checks values for batch encoding. SEAL reduces out-of-range
 * values mod t without a word (t+1 encodes as 1); here they are an error naming
 * the first offending index.
 */
export function toBatchValues(
  ctx: HeContext,
  values: ReadonlyArray<number | bigint>,
  options: BatchCodecOptions = {},
): BigInt64Array {
  const { min, max } = batchRange(ctx, options)
  if (values.length > ctx.slotCount) {
    throw new HeError('VALUE_OUT_OF_RANGE', `${values.length} values do not fit ${ctx.slotCount} slots`, {
      details: { count: values.length, slots: ctx.slotCount },
    })
  }
  const out = new BigInt64Array(values.length)
  for (let i = 0; i < values.length; i++) {
    const value = values[i] as number | bigint
    if (typeof value === 'number' && !Number.isSafeInteger(value)) {
      throw new HeError('VALUE_OUT_OF_RANGE', `value[${i}] = ${value} is not an integer (BFV/BGV encode integers)`, {
        details: { index: i },
      })
    }
    const big = BigInt(value)
    if (big < min || big > max) {
      throw new HeError(
        'VALUE_OUT_OF_RANGE',
        `value[${i}] = ${big} is outside [${min}, ${max}] (plain modulus t = ${max - min + 1n}); SEAL would silently wrap it`,
        { details: { index: i, min: String(min), max: String(max) } },
      )
    }
    out[i] = big
  }
  return out
}

/** Batch-encodes integers (numbers or bigints) into a plaintext owned by `scope`. */
export function encodeBatch(
  ctx: HeContext,
  values: ReadonlyArray<number | bigint>,
  scope: SealScope,
  options: BatchCodecOptions = {},
): Plaintext {
  const { encoder } = requireBatching(ctx)
  const data = toBatchValues(ctx, values, options)
  const plaintext = scope.track(new ctx.seal.Plaintext())
  sealCall('batch encode', () => encoder.encode(data, plaintext))
  return plaintext
}

/** Decodes all slots of a batch plaintext (centred unless `signed: false`). */
export function decodeBatch(ctx: HeContext, plaintext: Plaintext, options: BatchCodecOptions = {}): bigint[] {
  const { encoder } = requireBatching(ctx)
  const decoded = sealCall('batch decode', () =>
    options.signed === false
      ? (encoder.decodeBigUint64(plaintext) as BigUint64Array)
      : (encoder.decodeBigInt64(plaintext) as BigInt64Array),
  )
  return Array.from(decoded, (value) => BigInt(value))
}

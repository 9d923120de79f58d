import type { ParmsIdType, Plaintext } from 'node-seal/throws'
import { HeError } from '../errors/HeError.ts'
import { sealCall } from '../errors/toHeError.ts'
import type { HeContext } from '../params/HeContext.ts'
import type { SealScope } from '../scope/SealScope.ts'

/** Options for CKKS encoding. */
export interface CkksEncodeOptions {
  /** Encoding scale; defaults to the context's 2^scaleBits. */
  scale?: number
  /** Encode at this level of the chain instead of the top (e.g. to match a rescaled ciphertext). */
  parmsId?: ParmsIdType
}

function requireCkks(ctx: HeContext) {
  if (!ctx.ckksEncoder) {
    throw new HeError('SCHEME_MISMATCH', `CKKS encoding needs the CKKS scheme; these parameters are ${ctx.scheme}`)
  }
  return ctx.ckksEncoder
}

/**
 * Encodes real numbers into a CKKS plaintext owned by `scope`. Values must be
 * finite and small enough that value × scale stays inside the data modulus —
 * beyond it CKKS returns noise without an error.
 */
export function encodeCkks(
  ctx: HeContext,
  values: ReadonlyArray<number>,
  scope: SealScope,
  options: CkksEncodeOptions = {},
): Plaintext {
  const encoder = requireCkks(ctx)
  if (values.length > ctx.slotCount) {
    throw new HeError('VALUE_OUT_OF_RANGE', `${values.length} values do not fit ${ctx.slotCount} CKKS slots`)
  }
  const scale = options.scale ?? ctx.scale
  if (!(scale > 1) || !Number.isFinite(scale)) {
    throw new HeError('VALUE_OUT_OF_RANGE', `CKKS scale ${scale} must be a finite number > 1`)
  }
  // One bit of headroom for the sign; the data primes bound what decodes correctly.
  const dataBits = ctx.facts.coeffModulusBits.slice(0, ctx.facts.dataPrimeCount).reduce((a, b) => a + b, 0)
  const limit = 2 ** (dataBits - Math.log2(scale) - 1)
  const data = new Float64Array(values.length)
  for (let i = 0; i < values.length; i++) {
    const value = values[i] as number
    if (!Number.isFinite(value)) {
      throw new HeError('VALUE_OUT_OF_RANGE', `value[${i}] = ${value} is not a finite number`, {
        details: { index: i },
      })
    }
    if (Math.abs(value) >= limit) {
      throw new HeError(
        'VALUE_OUT_OF_RANGE',
        `value[${i}] = ${value} is too large for scale 2^${Math.log2(scale).toFixed(1)} (|value| must be < ${limit.toPrecision(3)})`,
        { details: { index: i } },
      )
    }
    data[i] = value
  }
  const plaintext = scope.track(new ctx.seal.Plaintext())
  sealCall('CKKS encode', () => {
    encoder.encode(data, scale, plaintext)
    // node-seal 7 binds no encode-at-level overload: encode at the top, then switch down.
    if (options.parmsId) ctx.evaluator.plainModSwitchToInplace(plaintext, options.parmsId)
  })
  return plaintext
}

/** Decodes every slot of a CKKS plaintext. */
export function decodeCkks(ctx: HeContext, plaintext: Plaintext): number[] {
  const encoder = requireCkks(ctx)
  return Array.from(sealCall('CKKS decode', () => encoder.decodeFloat64(plaintext) as Float64Array))
}

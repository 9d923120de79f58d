import { beforeAll, describe, expect, it } from 'vitest'
import { decodeEnvelope } from '../envelope/decodeEnvelope.ts'
import { encodeEnvelope } from '../envelope/encodeEnvelope.ts'
import { prepareSealPayload } from '../envelope/prepareSealPayload.ts'
import { payloadLimitsOf } from '../envelope/sealPayloadLimits.ts'
import { HeError } from '../errors/HeError.ts'
import { getHeContext } from '../params/ContextCache.ts'
import type { HeContext } from '../params/HeContext.ts'
import { decodeEvaluationKeys } from './EvaluationKeys.ts'
import { exportEvaluationKeys, exportGaloisKeys } from './exportKeys.ts'
import { KeySet } from './KeySet.ts'
import { keyUploadCost, keyUploadPeakHeapBytes } from './keyUploadCost.ts'
import { type KeyLoadTarget, keyUploadSize, unloadedKeyInflateBound } from './keyUploadSize.ts'

let ctx: HeContext
let load: KeyLoadTarget
const MAX_N = 16384

beforeAll(async () => {
  ctx = await getHeContext({ scheme: 'bgv', polyModulusDegree: 4096, plainModulus: { batchingBits: 20 } })
  load = { fingerprint: ctx.fingerprint, polyModulusDegree: 4096, keyPrimeCount: ctx.coeffPrimes.length }
})

/** What checking the upload really inflates (or unpacks) its payloads to, under `ctx`. */
function inflatedUnder(bytes: Uint8Array): number {
  const decoded = decodeEvaluationKeys(bytes)
  let total = 0
  for (const envelope of [decoded.relinKeys, decoded.galoisKeys]) {
    if (!envelope) continue
    if (envelope.compression === 'packed') continue
    total += prepareSealPayload(envelope, payloadLimitsOf(ctx)).payload.length
  }
  return total
}

describe('keyUploadSize', () => {
  it('sizes keys under the load target to within bytes: what they inflate to, and their full size once SEAL expands the seeds', () => {
    using keys = KeySet.generate(ctx, { relin: true, galois: { steps: [1, 2, 4, 8] } })
    const bytes = exportEvaluationKeys(keys)
    const size = keyUploadSize(bytes, { load, maxPolyModulusDegree: MAX_N })
    expect(size).toMatchObject({ uploadedBytes: bytes.length, loaded: true, galoisElements: 4 })
    // The bound each payload is inflated within (SEAL's save of the listed keys, a few optional bytes over).
    const inflated = inflatedUnder(bytes)
    expect(size.inflatedBytes).toBeGreaterThanOrEqual(inflated)
    expect(size.inflatedBytes).toBeLessThan(inflated + 1024)
    // SEAL's own full-form (unseeded, uncompressed) saves: what loading builds.
    const full = keys.serializeRelinKeys('none', false).length + keys.serializeGaloisKeys('none', false).length
    expect(size.loadedBytes).toBeGreaterThanOrEqual(full)
    expect(size.loadedBytes).toBeLessThan(full + 1024)
    // Seeded keys inflate to half their full size; the upload is smaller still.
    expect(size.inflatedBytes).toBeLessThan(0.6 * full)
    expect(size.uploadedBytes).toBeLessThan(size.inflatedBytes)
    expect(keyUploadPeakHeapBytes(size)).toBe(size.inflatedBytes + size.loadedBytes)
  })

  it('sizes packed Galois keys by what they unpack to', () => {
    using keys = KeySet.generate(ctx, { galois: { steps: [1, 3] } })
    const packed = exportGaloisKeys(keys, { compression: 'packed' })
    const zstd = exportGaloisKeys(keys, { compression: 'zstd' })
    const a = keyUploadSize(packed, { load, maxPolyModulusDegree: MAX_N })
    const b = keyUploadSize(zstd, { load, maxPolyModulusDegree: MAX_N })
    expect(a.uploadedBytes).toBeLessThan(b.uploadedBytes)
    expect([a.inflatedBytes, a.loadedBytes]).toEqual([b.inflatedBytes, b.loadedBytes])
    expect(keyUploadCost(a)).toBe(keyUploadCost(b))
  })

  it('prices by the Galois elements the meta lists, however few bytes carry them', () => {
    using keys = KeySet.generate(ctx, { galois: { steps: [1] } })
    const one = decodeEnvelope(exportGaloisKeys(keys, { compression: 'zstd' }))
    const honest = keyUploadSize(one.bytes, { load, maxPolyModulusDegree: MAX_N })
    // The same few bytes claiming 1,000 elements: a worker inflates within what 1,000 keys
    // take (and refuses the payload when it holds other keys), so that is the price.
    const elements = Array.from({ length: 1000 }, (_, i) => 2 * i + 3)
    const claimed = encodeEnvelope({
      kind: 'galoisKeys',
      fingerprint: one.fingerprint,
      keySetId: one.keySetId as string,
      seeded: one.seeded,
      payload: one.payload,
      meta: { elements },
    })
    const size = keyUploadSize(claimed, { load, maxPolyModulusDegree: MAX_N })
    expect(size.uploadedBytes).toBeLessThan(honest.uploadedBytes + 10_000)
    expect(size.galoisElements).toBe(1000)
    expect(size.loadedBytes).toBeGreaterThan(900 * honest.loadedBytes)
    expect(keyUploadCost(size)).toBeGreaterThan(400 * keyUploadCost(honest))
    expect(size.refusal).toBeUndefined()
    // Knowing the smallest prime, it also sees what the worker would refuse before inflating:
    // 1,000 genuine keys cannot compress into so few bytes.
    const minPrimeBits = Math.min(...ctx.coeffPrimes.map((prime) => prime.toString(2).length))
    const checked = keyUploadSize(claimed, { load: { ...load, minPrimeBits }, maxPolyModulusDegree: MAX_N })
    expect(checked.refusal?.code).toBe('INVALID_ENVELOPE')
    expect(checked.refusal?.message).toMatch(/lists 1000 Galois elements, and their keys take at least/)
    expect(keyUploadSize(one.bytes, { load: { ...load, minPrimeBits }, maxPolyModulusDegree: MAX_N }).refusal).toBe(
      undefined,
    )
  })

  it('sizes keys of other parameters by the bound they are inflated within, without loading them', () => {
    using keys = KeySet.generate(ctx, { relin: true, galois: { steps: [1, 2] } })
    const bytes = exportEvaluationKeys(keys)
    const other = { ...load, fingerprint: '0'.repeat(32) }
    const size = keyUploadSize(bytes, { load: other, maxPolyModulusDegree: MAX_N })
    const decoded = decodeEvaluationKeys(bytes)
    const bound = [decoded.relinKeys, decoded.galoisKeys].reduce(
      (sum, envelope) => sum + unloadedKeyInflateBound(envelope?.payload.length ?? 0),
      0,
    )
    expect(size).toMatchObject({ loaded: false, loadedBytes: 0, inflatedBytes: bound })
    expect(size.inflatedBytes).toBeGreaterThan(inflatedUnder(bytes))
    expect(keyUploadPeakHeapBytes(size)).toBe(bound)
  })

  it('refuses what does not frame as an envelope, as a worker would before inflating anything', () => {
    const error = (() => {
      try {
        keyUploadSize(new Uint8Array([1, 2, 3]), { load, maxPolyModulusDegree: MAX_N })
      } catch (caught) {
        return caught
      }
      return undefined
    })()
    expect(error).toBeInstanceOf(HeError)
    expect((error as HeError).code).toBe('INVALID_ENVELOPE')
  })
})

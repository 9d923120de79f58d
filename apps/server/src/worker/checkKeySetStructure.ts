import { type DecodedEvaluationKeys, HeError } from '@sealbox/he-core'
import {
  prepareSealPayload,
  type SealPayloadShape,
  structuralPayloadLimits,
  unloadedKeyInflateBound,
} from '@sealbox/he-core/envelope'

/**
 * Verifies the structure of keys made under parameters this worker has not built
 * (only their fingerprint is known, so they cannot be loaded into SEAL here): every
 * payload is inflated within a bound and walked field by field — n a supported degree
 * up to MAX_POLY_DEGREE, every key of one shape, relinearization keys one list,
 * Galois keys one slot per n with exactly the elements the envelope lists, every
 * byte accounted for; packed Galois keys by their layout (n, primes, elements, exact
 * length: nothing to inflate). SEAL loads them, with the exact checks of their context
 * (for packed keys: every residue below its prime), when a program first uses them.
 * Returns n; INVALID_ENVELOPE when anything is off.
 */
export function checkKeySetStructure(decoded: DecodedEvaluationKeys, maxPolyModulusDegree: number): number {
  const shapes: SealPayloadShape[] = []
  for (const envelope of [decoded.relinKeys, decoded.galoisKeys]) {
    if (!envelope) continue
    const limits = structuralPayloadLimits({
      maxPolyModulusDegree,
      // The bound the upload was priced and admitted by (keyUploadSize).
      maxInflatedBytes: unloadedKeyInflateBound(envelope.payload.length),
    })
    const { shape } = prepareSealPayload(envelope, limits)
    if (shape) shapes.push(shape)
  }
  const [first, second] = shapes
  if (!first) throw new HeError('INTERNAL', 'no key payload could be checked in this worker')
  if (
    second &&
    (second.polyModulusDegree !== first.polyModulusDegree || second.coeffModulusSize !== first.coeffModulusSize)
  ) {
    throw new HeError(
      'INVALID_ENVELOPE',
      `the key set's relinearization keys (n=${first.polyModulusDegree}, ${first.coeffModulusSize} primes) and Galois keys (n=${second.polyModulusDegree}, ${second.coeffModulusSize} primes) were made under different parameters`,
    )
  }
  return first.polyModulusDegree
}

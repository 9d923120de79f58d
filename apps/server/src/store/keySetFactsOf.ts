import type { DecodedEvaluationKeys, EvaluationKeyKind } from '@sealbox/he-core'
import type { KeySetFacts } from './KeyStore.ts'

/** What the store records about uploaded evaluation keys. */
export function keySetFactsOf(decoded: DecodedEvaluationKeys, extra: Partial<KeySetFacts> = {}): KeySetFacts {
  const kinds: EvaluationKeyKind[] = []
  if (decoded.relinKeys) kinds.push('relinKeys')
  if (decoded.galoisKeys) kinds.push('galoisKeys')
  return {
    keySetId: decoded.keySetId,
    fingerprint: decoded.fingerprint,
    kinds,
    galoisElements: [...(decoded.galoisKeys?.meta.elements ?? [])].sort((a, b) => a - b),
    ...(decoded.label === undefined ? {} : { label: decoded.label }),
    ...extra,
  }
}

import { HeError, missingProgramKeys, type ProgramAnalysis } from '@sealbox/he-core'
import type { KeySetRecord } from '../store/KeyStore.ts'
import type { KeySetNeeds } from './resolveKeySet.ts'

/** What a program needs of a key set: the relinearization and Galois keys its analysis lists. */
export function programKeyNeeds(
  analysis: ProgramAnalysis,
  envelopeKeySetIds: Iterable<string>,
  onRecord: (record: KeySetRecord) => void,
): KeySetNeeds {
  const keyGenSteps = () => [...analysis.keyGenSteps].sort((a, b) => a - b)
  return {
    envelopeKeySetIds,
    envelopes: 'the inputs',
    missingFrom(record: KeySetRecord) {
      onRecord(record)
      const elements = new Set(record.galoisElements)
      const missing = missingProgramKeys(analysis, {
        relinKeys: record.kinds.includes('relinKeys') ? { hasKey: (power) => power === 2 } : undefined,
        galoisKeys: record.kinds.includes('galoisKeys') ? { hasKey: (element) => elements.has(element) } : undefined,
      })
      if (!missing[0]) return undefined
      // Every missing key at once, before any work: the client can make exactly those.
      return new HeError('MISSING_KEY', `key set "${record.id}": ${missing.map((m) => m.message).join('; ')}`, {
        details: {
          missingSteps: [...new Set(missing.flatMap((m) => m.steps))].sort((a, b) => a - b),
          needsRelinKeys: missing.some((m) => m.key === 'relin'),
        },
      })
    },
    withoutKeySet() {
      if (!analysis.needsRelinKeys && analysis.galoisElements.length === 0) return undefined
      const what = [
        ...(analysis.needsRelinKeys ? ['relinearization keys'] : []),
        ...(analysis.galoisElements.length > 0
          ? [`Galois keys for steps ${keyGenSteps().join(', ')} (0: the column rotation)`]
          : []),
      ].join(' and ')
      return new HeError('MISSING_KEY', `this program needs ${what}: upload a key set and pass "keySet"`, {
        details: { missingSteps: keyGenSteps(), needsRelinKeys: analysis.needsRelinKeys },
      })
    },
  }
}

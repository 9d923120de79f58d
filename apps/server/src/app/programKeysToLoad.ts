import { type ProgramAnalysis, programKeyUse } from '@sealbox/he-core'
import type { KeyUse } from '../executor/KeyUse.ts'
import type { KeySetRecord } from '../store/KeyStore.ts'

/** What an evaluate loads of its stored key set. */
export type KeysToLoad =
  /** The program uses no key of it (the key set only names the secret key of the inputs). */
  | { load: 'none'; use: KeyUse }
  /** It uses every key the set holds: the whole set, one cache entry for all such programs. */
  | { load: 'whole'; use: KeyUse }
  /** Some of them: just those (`EvaluateJob.keyUse`). */
  | { load: 'part'; use: KeyUse }

/**
 * The keys of `record` the program uses, resolved as SEAL resolves its rotations
 * (`programKeyUse`), so a `rotateRows(1)` against an upload of 700 Galois elements loads
 * one. Call after `missingProgramKeys` found nothing missing.
 */
export function programKeysToLoad(analysis: ProgramAnalysis, record: KeySetRecord): KeysToLoad {
  const elements = new Set(record.galoisElements)
  const found = programKeyUse(analysis, { hasKey: (element) => elements.has(element) })
  const use: KeyUse = {
    galoisElements: found.galoisElements,
    relinKeys: found.relinKeys && record.kinds.includes('relinKeys'),
  }
  if (!use.relinKeys && use.galoisElements.length === 0) return { load: 'none', use }
  const whole = use.galoisElements.length === elements.size && use.relinKeys === record.kinds.includes('relinKeys')
  return { load: whole ? 'whole' : 'part', use }
}

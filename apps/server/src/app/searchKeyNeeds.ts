import { HeError } from '@sealbox/he-core'
import type { KeySetRecord } from '../store/KeyStore.ts'
import type { KeySetNeeds } from './resolveKeySet.ts'
import type { SearchSummary } from './SearchSummary.ts'

/**
 * What a search needs of a key set: its params fingerprint and every Galois element it
 * rotates by. The server's one check of a search's Galois keys, on the loop before any
 * work queues (`resolveKeySet`): the worker runs only jobs that passed it, and he-core's
 * `PrivateSearchIndex` guards its own callers.
 */
export function searchKeyNeeds(
  search: Pick<SearchSummary, 'fingerprint' | 'galoisElements'>,
  envelopeKeySetIds: Iterable<string>,
): KeySetNeeds {
  return {
    fingerprint: search.fingerprint,
    envelopeKeySetIds,
    envelopes: 'the queries',
    missingFrom(record: KeySetRecord) {
      const missing = search.galoisElements.filter((element) => !record.galoisElements.includes(element))
      if (missing.length === 0) return undefined
      return new HeError(
        'MISSING_KEY',
        `key set "${record.id}" lacks the Galois elements ${missing.join(', ')} this search needs`,
        { details: { missing } },
      )
    },
    withoutKeySet: () =>
      search.galoisElements.length === 0
        ? undefined
        : new HeError('MISSING_KEY', 'this search needs Galois keys: upload a key set and pass ?keySet=<id>'),
  }
}

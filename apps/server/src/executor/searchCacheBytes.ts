import type { KeyUploadSize } from '@sealbox/he-core/envelope'
import { galoisKeyWordsBytes } from '@sealbox/he-ring'
import { keySwitchingKeyBytes } from '../app/programAdmission.ts'
import type { SearchSummary } from '../app/SearchSummary.ts'

/**
 * Bytes a key set under the search's parameters takes in a worker's key cache and in the
 * node's bytes cache (the same form in both), for the jobs that would use it:
 * - a search holds only the Galois elements it uses: the key-switching kernel's u32
 *   words (`keyForm: 'kernel'`, `KernelGaloisKeys`, without its header of a few hundred
 *   bytes), else SEAL's keys of those elements;
 * - a key set of more Galois elements than the search uses is made for evaluate programs
 *   too, which load it whole into SEAL (`loadedBytes`, no kernel words: their keys never
 *   reach the kernel). One of just the search's elements is a search's: an evaluate
 *   program that uses it anyway reloads it when evicted, and is charged that load.
 * The larger of the two: what the caches must be able to keep.
 */
export function searchCacheBytes(
  search: Pick<SearchSummary, 'galoisElements' | 'keyForm'> & {
    config: { params: { polyModulusDegree: number; coeffModulusBits: number[] } }
  },
  size: Pick<KeyUploadSize, 'loadedBytes' | 'galoisElements'>,
): number {
  const params = search.config.params
  const elements = search.galoisElements.length
  const searchForm =
    search.keyForm === 'kernel'
      ? elements * galoisKeyWordsBytes(params.polyModulusDegree, params.coeffModulusBits.length)
      : keySwitchingKeyBytes(params, elements)
  const forPrograms = size.galoisElements > elements ? size.loadedBytes : 0
  return Math.max(searchForm, forPrograms)
}

import { type GaloisKeyWords, parseGaloisKeyWords } from '@sealbox/he-ring'
import type { GaloisKeys } from 'node-seal/throws'
import { ringCall, sealCall } from '../errors/toHeError.ts'
import type { HeContext } from '../params/HeContext.ts'

const cache = new WeakMap<GaloisKeys, GaloisKeyWords>()

/**
 * The key-switching kernel's u32 words of `galoisKeys` for `elements`: SEAL's own
 * uncompressed save of the keys, parsed and checked by he-ring's `parseGaloisKeyWords`
 * (INVALID_ENVELOPE for keys SEAL would not have written, MISSING_KEY for an element
 * they lack), cached with the keys object so a worker converts a user's keys once.
 * Their size is counted in the keys' heap budget up front (`EvaluationKeys`).
 */
export function galoisKeyWordsOf(ctx: HeContext, galoisKeys: GaloisKeys, elements: readonly number[]): GaloisKeyWords {
  const cached = cache.get(galoisKeys)
  if (cached && elements.every((element) => cached.elements.has(element))) return cached
  const saved = sealCall('save Galois keys', () => galoisKeys.saveToArray(ctx.seal.ComprModeType.none) as Uint8Array)
  const words = ringCall('read Galois keys', () =>
    parseGaloisKeyWords(
      { polyModulusDegree: ctx.facts.polyModulusDegree, keyPrimes: ctx.coeffPrimes },
      saved,
      elements,
    ),
  )
  cache.set(galoisKeys, words)
  return words
}

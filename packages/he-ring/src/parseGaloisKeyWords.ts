import type { GaloisKeyWords } from './GaloisKeyWords.ts'
import { RingError } from './RingError.ts'

/** The parts of a context the key words depend on. */
export interface KeyWordsShape {
  polyModulusDegree: number
  /** SEAL's key modulus: the data primes, then the special prime. */
  keyPrimes: readonly bigint[]
}

const SEAL_HEADER = 16
const PARMS_ID = 32
/** A ciphertext's members before its data array: parms id, NTT flag, size, n, primes, scale, correction factor. */
const CIPHERTEXT_MEMBERS = PARMS_ID + 1 + 8 * 5

/** Kernel words per Galois element: L components × 2 polynomials × (L + 1) primes × n, 4 bytes each. */
export function galoisKeyWordsBytes(polyModulusDegree: number, keyPrimeCount: number): number {
  const L = keyPrimeCount - 1
  return L * 2 * keyPrimeCount * polyModulusDegree * 4
}

function refuse(message: string): never {
  throw new RingError('INVALID_ENVELOPE', `Galois keys: ${message}`)
}

/**
 * The u32 words of the Galois keys in `saved` for `elements`, read from SEAL's own
 * uncompressed save of the keys (KSwitchKeys: parms id, then per Galois index its vector of
 * public keys, each a ciphertext of size 2 over the key level). The layout is checked field
 * by field and every residue against its prime: keys SEAL would not have written are
 * INVALID_ENVELOPE, a missing element MISSING_KEY, and the kernel never runs on them.
 */
export function parseGaloisKeyWords(
  shape: KeyWordsShape,
  saved: Uint8Array,
  elements: readonly number[],
): GaloisKeyWords {
  const n = shape.polyModulusDegree
  const primes = shape.keyPrimes
  const L = primes.length - 1
  const keyWords = 2 * primes.length * n
  const primeNumbers = primes.map(Number)
  const view = new DataView(saved.buffer, saved.byteOffset, saved.byteLength)
  const u64 = (at: number): number => {
    if (at + 8 > saved.byteLength) refuse(`truncated at byte ${at}`)
    const value = view.getBigUint64(at, true)
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) refuse(`a count of ${value} at byte ${at}`)
    return Number(value)
  }
  if (saved.byteLength < SEAL_HEADER + PARMS_ID + 8 || view.getUint16(0, true) !== 0xa15e || saved[5] !== 0) {
    refuse('not an uncompressed SEAL save')
  }
  let at = SEAL_HEADER + PARMS_ID
  const indices = u64(at)
  at += 8
  const wanted = new Set(elements)
  const found = new Map<number, Uint32Array>()
  const recordBytes = SEAL_HEADER + CIPHERTEXT_MEMBERS + SEAL_HEADER + 8 + keyWords * 8
  for (let index = 0; index < indices; index++) {
    const count = u64(at)
    at += 8
    const element = 2 * index + 1
    if (count !== 0 && count !== L) refuse(`element ${element} has ${count} components, expected ${L}`)
    if (!wanted.has(element)) {
      at += count * recordBytes
      continue
    }
    const out = new Uint32Array(L * keyWords)
    for (let j = 0; j < count; j++) {
      if (at + recordBytes > saved.byteLength) refuse(`truncated in element ${element}`)
      const members = at + SEAL_HEADER
      const size = u64(members + PARMS_ID + 1)
      const degree = u64(members + PARMS_ID + 9)
      const primeCount = u64(members + PARMS_ID + 17)
      const wordCount = u64(members + CIPHERTEXT_MEMBERS + SEAL_HEADER)
      if (saved[members + PARMS_ID] !== 1 || size !== 2 || degree !== n || primeCount !== primes.length) {
        refuse(`element ${element} component ${j} is not a key-level NTT-form pair (size ${size}, n ${degree})`)
      }
      if (wordCount !== keyWords) refuse(`element ${element} component ${j} holds ${wordCount} words`)
      const data = members + CIPHERTEXT_MEMBERS + SEAL_HEADER + 8
      const pairs = new Uint32Array(saved.buffer.slice(saved.byteOffset + data, saved.byteOffset + data + keyWords * 8))
      // Per polynomial of n words, one prime; a Number compare is exact (a u32 against a
      // prime's nearest double, which stays at or above 2^32 when the prime does).
      for (let poly = 0; poly < keyWords / n; poly++) {
        const prime = primeNumbers[poly % primes.length] as number
        for (let w = poly * n; w < (poly + 1) * n; w++) {
          const lo = pairs[2 * w] as number
          if (pairs[2 * w + 1] !== 0 || lo >= prime) {
            refuse(`element ${element} component ${j} has a residue at or above its prime (word ${w})`)
          }
          out[j * keyWords + w] = lo
        }
      }
      at += recordBytes
    }
    if (count === L) found.set(element, out)
  }
  const missing = elements.filter((element) => !found.has(element))
  if (missing.length > 0) {
    throw new RingError('MISSING_KEY', `no Galois key for element ${missing.join(', ')}`, { details: { missing } })
  }
  return { elements: found, bytes: found.size * L * keyWords * 4 }
}

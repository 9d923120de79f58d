import { HeError } from '../errors/HeError.ts'
import type { HeErrorCode } from '../errors/heErrorCodes.ts'
import { POLY_MODULUS_DEGREES } from '../params/ParamsSpec.ts'
import { PACKED_MAX_WIDTH, PACKED_SEED_BYTES } from './packedCiphertext.ts'
import { residueRunBytes } from './residueBitStream.ts'
import { COEFF_MODULUS_SIZE_MAX } from './sealPayloadLimits.ts'

/*
 * sealbox's bit-packed Galois keys (envelope compression code 3, `packed`, on a
 * galoisKeys envelope). A Galois key is, per element, one key-switching ciphertext per
 * data prime, each of size 2 over every prime of the key level in NTT form; its residues
 * are uniform below their primes, so each needs ⌈log2 q_i⌉ bits, not SEAL's 64. Seeded,
 * only c0 travels with the seed of c1: at n = 4096 over [27, 28, 28] an element is
 * 2 × 4096 × 83 bits = 84,992 bytes plus two seeds, against 196,608+ in SEAL's seeded save.
 *
 * ```
 *  0  4  magic "SBGK"
 *  4  1  layout version 1
 *  5  1  polynomials stored per key p: 1 (seeded: c0, then c1's seed) or 2
 *  6  1  primes k of the key level (the data primes and the special prime)
 *  7  1  keys per element d = k − 1 (one per data prime, SEAL's decomposition)
 *  8  4  n (uint32)
 * 12  4  elements e (uint32, 1…n)
 * 16  k  bit width of each prime's residues (1…61), in SEAL's prime order
 *  …  4e the Galois elements (uint32), odd, below 2n, strictly ascending
 *  …     per element, per key: the seed (seeded only: SEAL's PRNG type byte and its
 *        64-byte seed), then the key's residues (polynomial, prime, coefficient; each
 *        in its prime's width, least significant bit first), ending on a byte boundary
 *        with the unused bits 0
 * ```
 * The length follows from the header alone, so a forged count is a length mismatch
 * before anything is read; `unpackSealGaloisKeys` checks the rest against the context.
 */

/** "SBGK": the packed Galois keys' magic (a SEAL payload starts with 5E A1). */
export const PACKED_KEYS_MAGIC: readonly number[] = [0x53, 0x42, 0x47, 0x4b]
export const PACKED_KEYS_LAYOUT_VERSION = 1
/** Bytes before the widths. */
export const PACKED_KEYS_HEADER_BYTES = 16

/** What a packed Galois-key payload's header says. */
export interface PackedGaloisKeysShape {
  /** Polynomials stored per key: 1 when seeded, else 2. */
  polys: 1 | 2
  seeded: boolean
  /** Primes of the key level. */
  primes: number
  /** Keys per element (= primes − 1). */
  keysPerElement: number
  polyModulusDegree: number
  widths: number[]
  /** The Galois elements, ascending. */
  elements: number[]
  /** Offset of the first key (its seed when seeded). */
  keysAt: number
  /** Bytes of one key: its seed (seeded) and its residues. */
  keyBytes: number
}

/** Bytes of one packed key: its seed when seeded, then its residues. */
export function packedKeyBytes(polys: 1 | 2, n: number, widths: readonly number[]): number {
  return (polys === 1 ? PACKED_SEED_BYTES : 0) + residueRunBytes({ polys, polyModulusDegree: n, widths })
}

/** Bytes of packed Galois keys for `elements` elements. */
export function packedGaloisKeysBytes(polys: 1 | 2, n: number, widths: readonly number[], elements: number): number {
  const keys = elements * (widths.length - 1)
  return PACKED_KEYS_HEADER_BYTES + widths.length + 4 * elements + keys * packedKeyBytes(polys, n, widths)
}

/** True when `payload` starts with the packed Galois keys' magic. */
export function isPackedGaloisKeysPayload(payload: Uint8Array): boolean {
  return payload.length >= PACKED_KEYS_MAGIC.length && PACKED_KEYS_MAGIC.every((byte, i) => payload[i] === byte)
}

/**
 * Reads and checks the layout of packed Galois keys without a context: magic, version,
 * counts, widths, the exact length declared by the header, and the element list (odd,
 * below 2n, ascending). `code` is INVALID_INPUT when writing, INVALID_ENVELOPE when reading.
 */
export function checkPackedGaloisKeysLayout(payload: Uint8Array, code: HeErrorCode): PackedGaloisKeysShape {
  const fail = (what: string, details?: Record<string, unknown>) =>
    new HeError(code, `the packed Galois keys ${what}`, details === undefined ? {} : { details })
  if (payload.length < PACKED_KEYS_HEADER_BYTES) {
    throw fail(`are ${payload.length} bytes, shorter than their ${PACKED_KEYS_HEADER_BYTES}-byte header`)
  }
  if (!isPackedGaloisKeysPayload(payload)) throw fail('do not start with the magic "SBGK"')
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength)
  const version = view.getUint8(4)
  if (version !== PACKED_KEYS_LAYOUT_VERSION) {
    throw fail(`have layout version ${version}; this reader understands ${PACKED_KEYS_LAYOUT_VERSION}`)
  }
  const polys = view.getUint8(5)
  if (polys !== 1 && polys !== 2) throw fail(`store ${polys} polynomials per key; a key has 2 (1 when seeded)`)
  const primes = view.getUint8(6)
  if (primes < 2 || primes > COEFF_MODULUS_SIZE_MAX) {
    throw fail(
      `declare ${primes} key-level primes; 2…${COEFF_MODULUS_SIZE_MAX} are possible (data primes and a special prime)`,
    )
  }
  const keysPerElement = view.getUint8(7)
  if (keysPerElement !== primes - 1) {
    throw fail(
      `declare ${keysPerElement} keys per element over ${primes} primes; SEAL makes one per data prime, ${primes - 1}`,
    )
  }
  const n = view.getUint32(8, true)
  if (!(POLY_MODULUS_DEGREES as readonly number[]).includes(n)) {
    throw fail(`declare n = ${n}; n must be one of ${POLY_MODULUS_DEGREES.join(', ')}`)
  }
  const count = view.getUint32(12, true)
  if (count < 1 || count > n) throw fail(`declare ${count} Galois elements; 1…${n} are possible at n = ${n}`)
  if (payload.length < PACKED_KEYS_HEADER_BYTES + primes) throw fail(`are too short to hold their ${primes} widths`)
  const widths = Array.from(payload.subarray(PACKED_KEYS_HEADER_BYTES, PACKED_KEYS_HEADER_BYTES + primes))
  const badWidth = widths.find((w) => w < 1 || w > PACKED_MAX_WIDTH)
  if (badWidth !== undefined) throw fail(`declare a ${badWidth}-bit residue width; 1…${PACKED_MAX_WIDTH} are possible`)
  const expected = packedGaloisKeysBytes(polys, n, widths, count)
  if (payload.length !== expected) {
    throw fail(`are ${payload.length} bytes; their header declares ${expected}`, { expected, found: payload.length })
  }
  const elementsAt = PACKED_KEYS_HEADER_BYTES + primes
  const elements: number[] = []
  for (let i = 0; i < count; i++) {
    const element = view.getUint32(elementsAt + 4 * i, true)
    const previous = elements.at(-1) ?? 0
    if (element % 2 !== 1 || element >= 2 * n || element <= previous) {
      throw fail(`list Galois element ${element} at ${i}; elements are odd, below 2n = ${2 * n}, strictly ascending`, {
        found: element,
      })
    }
    elements.push(element)
  }
  return {
    polys,
    seeded: polys === 1,
    primes,
    keysPerElement,
    polyModulusDegree: n,
    widths,
    elements,
    keysAt: elementsAt + 4 * count,
    keyBytes: packedKeyBytes(polys, n, widths),
  }
}

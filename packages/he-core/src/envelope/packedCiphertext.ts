import { HeError } from '../errors/HeError.ts'
import type { HeErrorCode } from '../errors/heErrorCodes.ts'
import { POLY_MODULUS_DEGREES } from '../params/ParamsSpec.ts'
import { readResidueRun, writeResidueRun } from './residueBitStream.ts'
import { COEFF_MODULUS_SIZE_MAX } from './sealPayloadLimits.ts'

/*
 * sealbox's bit-packed ciphertext (envelope compression code 3, `packed`). A BFV/BGV
 * ciphertext's residues are uniform below their prime q_i, so each needs ⌈log2 q_i⌉
 * bits, not SEAL's 64: at n = 4096 over the primes [27, 28] a seeded query is
 * 4096 × 55 bits = 28,160 bytes plus its 64-byte seed, against SEAL's 65,730.
 *
 * ```
 *  0  4  magic "SBPK"
 *  4  1  layout version 1
 *  5  1  polynomials stored p: 1 (seeded: c0, then the seed of c1) or 2 (c0 and c1)
 *  6  1  primes k (the ciphertext's level: k data primes)
 *  7  1  low-order bits dropped per residue: always 0 in this version
 *  8  4  n (uint32)
 * 12  4  reserved, 0
 * 16  8  correction factor (uint64; BGV's mod switch changes it, BFV keeps 1)
 * 24  k  bit width of each prime's residues (1…61), in SEAL's prime order
 *  …  65 seeded only: SEAL's PRNG type byte, then its 64-byte seed
 *  …     the residues: polynomial, then prime, then coefficient (SEAL's order), each in
 *        its prime's width, least significant bit first; the last byte's unused bits are 0
 * ```
 * The reader checks the layout here (structure only: no context needed), and
 * `unpackCiphertext` checks it against the parameters and every residue below its prime.
 */

/** "SBPK": the packed payload's magic (a SEAL payload starts with 5E A1). */
export const PACKED_MAGIC: readonly number[] = [0x53, 0x42, 0x50, 0x4b]
export const PACKED_LAYOUT_VERSION = 1
/** Bytes before the widths. */
export const PACKED_HEADER_BYTES = 24
/** SEAL's PRNG type byte and its 64-byte seed. */
export const PACKED_SEED_BYTES = 65
/** Residues of primes up to 61 bits (SEAL's largest). */
export const PACKED_MAX_WIDTH = 61

/** What a packed payload's header says. */
export interface PackedCiphertextShape {
  /** Polynomials stored: 1 when seeded (c1 comes from the seed), else 2. */
  polys: 1 | 2
  seeded: boolean
  primes: number
  polyModulusDegree: number
  correctionFactor: bigint
  widths: number[]
  /** Offset of the PRNG type byte and seed (seeded only), else -1. */
  seedAt: number
  /** Offset of the packed residues. */
  bitsAt: number
  /** Bytes of the packed residues. */
  bitsBytes: number
}

/** Bits a residue below `prime` needs. */
export function residueBits(prime: bigint): number {
  return prime.toString(2).length
}

/** Bytes of a packed payload of `polys` polynomials of degree n with these widths. */
export function packedCiphertextBytes(polys: 1 | 2, n: number, widths: readonly number[]): number {
  const bits = polys * n * widths.reduce((sum, w) => sum + w, 0)
  return PACKED_HEADER_BYTES + widths.length + (polys === 1 ? PACKED_SEED_BYTES : 0) + Math.ceil(bits / 8)
}

/** True when `payload` starts with the packed magic (it is not a SEAL save). */
export function isPackedPayload(payload: Uint8Array): boolean {
  return payload.length >= PACKED_MAGIC.length && PACKED_MAGIC.every((byte, i) => payload[i] === byte)
}

/**
 * Reads and checks the layout of a packed payload: magic, version, counts, widths and
 * the exact length (a forged length is refused before anything is read). `code` is
 * INVALID_INPUT when writing, INVALID_ENVELOPE when reading.
 */
export function checkPackedLayout(payload: Uint8Array, code: HeErrorCode): PackedCiphertextShape {
  const fail = (what: string, details?: Record<string, unknown>) =>
    new HeError(code, `the packed ciphertext ${what}`, details === undefined ? {} : { details })
  if (payload.length < PACKED_HEADER_BYTES) {
    throw fail(`is ${payload.length} bytes, shorter than its ${PACKED_HEADER_BYTES}-byte header`)
  }
  if (!isPackedPayload(payload)) throw fail('does not start with the magic "SBPK"')
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength)
  const version = view.getUint8(4)
  if (version !== PACKED_LAYOUT_VERSION) {
    throw fail(`has layout version ${version}; this reader understands ${PACKED_LAYOUT_VERSION}`)
  }
  const polys = view.getUint8(5)
  if (polys !== 1 && polys !== 2)
    throw fail(`stores ${polys} polynomials; a fresh or switched ciphertext has 2 (1 when seeded)`)
  const primes = view.getUint8(6)
  if (primes < 1 || primes > COEFF_MODULUS_SIZE_MAX) {
    throw fail(`declares ${primes} primes; 1…${COEFF_MODULUS_SIZE_MAX} are possible`)
  }
  const dropped = view.getUint8(7)
  if (dropped !== 0) throw fail(`drops ${dropped} low-order bits; this version drops none`)
  const n = view.getUint32(8, true)
  if (!(POLY_MODULUS_DEGREES as readonly number[]).includes(n)) {
    throw fail(`declares n = ${n}; n must be one of ${POLY_MODULUS_DEGREES.join(', ')}`)
  }
  if (view.getUint32(12, true) !== 0) throw fail('has non-zero reserved bytes')
  const correctionFactor = view.getBigUint64(16, true)
  if (payload.length < PACKED_HEADER_BYTES + primes) throw fail(`is too short to hold its ${primes} widths`)
  const widths = Array.from(payload.subarray(PACKED_HEADER_BYTES, PACKED_HEADER_BYTES + primes))
  const badWidth = widths.find((w) => w < 1 || w > PACKED_MAX_WIDTH)
  if (badWidth !== undefined) throw fail(`declares a ${badWidth}-bit residue width; 1…${PACKED_MAX_WIDTH} are possible`)
  const seeded = polys === 1
  const expected = packedCiphertextBytes(polys, n, widths)
  if (payload.length !== expected) {
    throw fail(`is ${payload.length} bytes; its header declares ${expected}`, {
      expected,
      found: payload.length,
    })
  }
  const seedAt = seeded ? PACKED_HEADER_BYTES + primes : -1
  const bitsAt = PACKED_HEADER_BYTES + primes + (seeded ? PACKED_SEED_BYTES : 0)
  return {
    polys,
    seeded,
    primes,
    polyModulusDegree: n,
    correctionFactor,
    widths,
    seedAt,
    bitsAt,
    bitsBytes: payload.length - bitsAt,
  }
}

/** What `packResidues` packs: SEAL's residue words and how to read them. */
export interface PackResiduesInput {
  /** SEAL's u64 residues, little-endian: polynomial, then prime, then coefficient. */
  words: Uint8Array
  polys: 1 | 2
  polyModulusDegree: number
  /** The primes of the ciphertext's level, in SEAL's order. */
  primes: readonly bigint[]
  correctionFactor: bigint
  /** Seeded: SEAL's PRNG type byte and 64-byte seed (65 bytes). */
  seed?: Uint8Array
}

/**
 * Packs residues into the layout above. Every residue must be below its prime (SEAL's
 * own output always is): anything else is INVALID_INPUT, so a writer never produces a
 * payload the reader refuses.
 */
export function packResidues(input: PackResiduesInput): Uint8Array {
  const { words, polys, primes, polyModulusDegree: n } = input
  const widths = primes.map(residueBits)
  if (words.byteLength !== polys * primes.length * n * 8) {
    throw new HeError('INVALID_INPUT', `${words.byteLength} bytes of residues for ${polys}×${primes.length}×${n} words`)
  }
  if ((polys === 1) !== (input.seed !== undefined) || (input.seed && input.seed.length !== PACKED_SEED_BYTES)) {
    throw new HeError(
      'INVALID_INPUT',
      'a seeded (one-polynomial) packed ciphertext needs its 65-byte PRNG info, and only it',
    )
  }
  const out = new Uint8Array(packedCiphertextBytes(polys, n, widths))
  const view = new DataView(out.buffer)
  out.set(PACKED_MAGIC, 0)
  view.setUint8(4, PACKED_LAYOUT_VERSION)
  view.setUint8(5, polys)
  view.setUint8(6, primes.length)
  view.setUint32(8, n, true)
  view.setBigUint64(16, input.correctionFactor, true)
  out.set(widths, PACKED_HEADER_BYTES)
  let at = PACKED_HEADER_BYTES + primes.length
  if (input.seed) {
    out.set(input.seed, at)
    at += PACKED_SEED_BYTES
  }
  const source = new DataView(words.buffer, words.byteOffset, words.byteLength)
  writeResidueRun({ polys, polyModulusDegree: n, primes, widths }, source, 0, out, at)
  return out
}

/**
 * Unpacks the residues of a checked layout into SEAL's u64 words (written at
 * `target[offset…]`), refusing any residue at or above its prime and any set bit past
 * the last residue (INVALID_ENVELOPE: SEAL is never handed an unreduced coefficient).
 */
export function unpackResidues(
  payload: Uint8Array,
  shape: PackedCiphertextShape,
  primes: readonly bigint[],
  target: Uint8Array,
  offset: number,
): void {
  const n = shape.polyModulusDegree
  const out = new DataView(target.buffer, target.byteOffset + offset, shape.polys * primes.length * n * 8)
  const run = { polys: shape.polys, polyModulusDegree: n, primes, widths: shape.widths }
  readResidueRun(run, payload, shape.bitsAt, out, 0, 'the packed ciphertext')
}

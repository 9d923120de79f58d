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
 *  7  1  low-order bits dropped from each residue of c0 (k0; 0: none)
 *  8  4  n (uint32)
 * 12  1  low-order bits dropped from each residue of c1 (k1; 0: none)
 * 13  3  reserved, 0
 * 16  8  correction factor (uint64; BGV's mod switch changes it, BFV keeps 1)
 * 24  k  bit width of each prime's residues (1…61), in SEAL's prime order
 *  …  65 seeded only: SEAL's PRNG type byte, then its 64-byte seed
 *  …     the residues: polynomial, then prime, then coefficient (SEAL's order), each in
 *        its prime's width, least significant bit first; the last byte's unused bits are 0
 * ```
 * The reader checks the layout here (structure only: no context needed), and
 * `unpackCiphertext` checks it against the parameters and every residue below its prime.
 *
 * Dropped bits (k0, k1 > 0; a search response, `searchResponseDroppedBits`): only for one
 * prime q < 2^32, two stored polynomials (not seeded). The residues are then those of the
 * ciphertext in coefficient form; a BGV polynomial that drops bits is multiplied by t⁻¹ mod q
 * first (so the message sits in the high bits, as BFV's does; one that drops none is left
 * alone, as t·(t⁻¹·c) = c), each rounded to the nearest multiple of 2^k_p and stored
 * as h = round(x / 2^k_p) in w − k_p bits (h·2^k_p ≥ q wraps to 0, which is x's nearest
 * multiple mod q). The reader restores h·2^k_p (checking it is below q) and multiplies BGV's
 * rounded polynomials by t again: the ciphertext of the same message with t·(δ0 + δ1·s) more noise, |δ_p| ≤ 2^(k_p−1).
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
  /** Low-order bits dropped from each residue of c0 and c1 ([0, 0]: none). */
  dropped: [number, number]
  /** Bytes of the packed residues. */
  bitsBytes: number
}

/** Bits a residue below `prime` needs. */
export function residueBits(prime: bigint): number {
  return prime.toString(2).length
}

/** Bytes of a packed payload of `polys` polynomials of degree n with these widths, `dropped` bits off c0 and c1. */
export function packedCiphertextBytes(
  polys: 1 | 2,
  n: number,
  widths: readonly number[],
  dropped: readonly [number, number] = [0, 0],
): number {
  const perPoly = widths.reduce((sum, w) => sum + w, 0)
  let bits = 0
  for (let p = 0; p < polys; p++) bits += n * (perPoly - widths.length * (dropped[p] as number))
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
  const n = view.getUint32(8, true)
  if (!(POLY_MODULUS_DEGREES as readonly number[]).includes(n)) {
    throw fail(`declares n = ${n}; n must be one of ${POLY_MODULUS_DEGREES.join(', ')}`)
  }
  if (view.getUint8(13) !== 0 || view.getUint16(14, true) !== 0) throw fail('has non-zero reserved bytes')
  const correctionFactor = view.getBigUint64(16, true)
  if (payload.length < PACKED_HEADER_BYTES + primes) throw fail(`is too short to hold its ${primes} widths`)
  const widths = Array.from(payload.subarray(PACKED_HEADER_BYTES, PACKED_HEADER_BYTES + primes))
  const badWidth = widths.find((w) => w < 1 || w > PACKED_MAX_WIDTH)
  if (badWidth !== undefined) throw fail(`declares a ${badWidth}-bit residue width; 1…${PACKED_MAX_WIDTH} are possible`)
  const seeded = polys === 1
  const dropped: [number, number] = [view.getUint8(7), view.getUint8(12)]
  if (dropped[0] !== 0 || dropped[1] !== 0) {
    const width = widths[0] as number
    if (primes !== 1 || seeded || width > 32) {
      throw fail(
        `drops low-order bits (${dropped.join(', ')}), which only a two-polynomial ciphertext at one prime below 2^32 may`,
      )
    }
    const over = dropped.findIndex((k) => k >= width)
    if (over >= 0) {
      throw fail(`drops ${dropped[over]} bits of c${over}'s ${width}-bit residues; at most ${width - 1} may go`, {
        polynomial: over,
        dropped: dropped[over],
        width,
      })
    }
  }
  const expected = packedCiphertextBytes(polys, n, widths, dropped)
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
    dropped,
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
  /**
   * Bits dropped off c0 and c1: `words` then hold h = round(x / 2^k) (see the layout), each
   * checked to satisfy h·2^k < q.
   */
  dropped?: readonly [number, number]
}

/**
 * Packs residues into the layout above. Every residue must be below its prime (SEAL's
 * own output always is): anything else is INVALID_INPUT, so a writer never produces a
 * payload the reader refuses.
 */
export function packResidues(input: PackResiduesInput): Uint8Array {
  const { words, polys, primes, polyModulusDegree: n } = input
  const widths = primes.map(residueBits)
  const dropped = input.dropped ?? [0, 0]
  if (words.byteLength !== polys * primes.length * n * 8) {
    throw new HeError('INVALID_INPUT', `${words.byteLength} bytes of residues for ${polys}×${primes.length}×${n} words`)
  }
  if ((polys === 1) !== (input.seed !== undefined) || (input.seed && input.seed.length !== PACKED_SEED_BYTES)) {
    throw new HeError(
      'INVALID_INPUT',
      'a seeded (one-polynomial) packed ciphertext needs its 65-byte PRNG info, and only it',
    )
  }
  if (
    (dropped[0] !== 0 || dropped[1] !== 0) &&
    (polys !== 2 ||
      primes.length !== 1 ||
      (widths[0] as number) > 32 ||
      dropped.some((k) => k < 0 || k >= (widths[0] as number)))
  ) {
    throw new HeError(
      'INVALID_INPUT',
      `cannot drop ${dropped.join(', ')} bits: one prime below 2^32, two polynomials, k below its width`,
    )
  }
  const out = new Uint8Array(packedCiphertextBytes(polys, n, widths, dropped))
  const view = new DataView(out.buffer)
  out.set(PACKED_MAGIC, 0)
  view.setUint8(4, PACKED_LAYOUT_VERSION)
  view.setUint8(5, polys)
  view.setUint8(6, primes.length)
  view.setUint8(7, dropped[0])
  view.setUint8(12, dropped[1])
  view.setUint32(8, n, true)
  view.setBigUint64(16, input.correctionFactor, true)
  out.set(widths, PACKED_HEADER_BYTES)
  let at = PACKED_HEADER_BYTES + primes.length
  if (input.seed) {
    out.set(input.seed, at)
    at += PACKED_SEED_BYTES
  }
  const source = new DataView(words.buffer, words.byteOffset, words.byteLength)
  writeResidueRun({ polys, polyModulusDegree: n, primes, widths, dropped }, source, 0, out, at)
  return out
}

/**
 * Unpacks the residues of a checked layout into SEAL's u64 words (written at
 * `target[offset…]`; with dropped bits, the restored h·2^k), refusing any residue at or above its prime and any set bit past
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
  const run = { polys: shape.polys, polyModulusDegree: n, primes, widths: shape.widths, dropped: shape.dropped }
  readResidueRun(run, payload, shape.bitsAt, out, 0, 'the packed ciphertext')
}

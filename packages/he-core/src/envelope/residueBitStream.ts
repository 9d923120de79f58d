import { HeError } from '../errors/HeError.ts'

/*
 * The bit stream both packed layouts (ciphertexts, Galois keys) store residues in: each
 * residue in its prime's width, least significant bit first, polynomial then prime then
 * coefficient (SEAL's order), the run ending on a byte boundary with its unused bits 0.
 * Widths go up to 61 bits, so a residue is split into a low 32-bit and a high part.
 */

/** One run of residues: `polys` polynomials over `primes`, n coefficients each. */
export interface ResidueRun {
  polys: number
  polyModulusDegree: number
  /** The primes of the run, in SEAL's order. */
  primes: readonly bigint[]
  /** Bits per residue of each prime. */
  widths: readonly number[]
  /**
   * Low-order bits dropped per polynomial (one prime below 2^32 only): a residue is stored as
   * h = round(x / 2^k) in w − k bits, with h·2^k < q; the reader gives back h·2^k.
   */
  dropped?: readonly number[]
}

/** Bytes a run takes in the stream. */
export function residueRunBytes(run: Omit<ResidueRun, 'primes'>): number {
  const perPoly = run.widths.reduce((sum, w) => sum + w, 0)
  let bits = 0
  for (let p = 0; p < run.polys; p++)
    bits += run.polyModulusDegree * (perPoly - run.widths.length * (run.dropped?.[p] ?? 0))
  return Math.ceil(bits / 8)
}

/** The largest h whose h·2^k is below `prime` (k ≥ 1, prime < 2^32): a stored value's bound. */
function droppedLimit(prime: bigint, k: number): number {
  return Number((prime - 1n) >> BigInt(k))
}

/**
 * Writes SEAL's u64 residue words (`source`, little-endian, from byte `wordsAt`) into `out` at
 * byte `at`; returns the byte after the run. A residue at or above its prime is
 * INVALID_INPUT (SEAL's own output never has one), so a writer never produces a stream
 * the reader refuses.
 */
export function writeResidueRun(
  run: ResidueRun,
  source: DataView,
  wordsAt: number,
  out: Uint8Array,
  at: number,
): number {
  // Bit positions and integer shifts, as readResidueRun: a response is packed on every
  // search, and a double accumulator (a multiply and a Math.floor per byte) took most of
  // the save phase. Each value writes only the bytes it spans: its first byte is ORed into
  // the bits already there (or set, at a byte boundary), the others set.
  let pos = at * 8
  const put = (value: number, bits: number) => {
    const byte = Math.floor(pos / 8) // not >>> 3: an output may pass 2^29 bytes
    const shift = pos - byte * 8
    out[byte] = shift === 0 ? value & 0xff : (out[byte] as number) | ((value << shift) & 0xff)
    let rest = value >>> (8 - shift)
    const end = pos + bits
    for (let b = byte + 1; b * 8 < end; b++) {
      out[b] = rest & 0xff
      rest >>>= 8
    }
    pos = end
  }
  let word = 0
  for (let p = 0; p < run.polys; p++) {
    const k = run.dropped?.[p] ?? 0
    for (const [i, prime] of run.primes.entries()) {
      const w = (run.widths[i] as number) - k
      const bound = k === 0 ? prime : BigInt(droppedLimit(prime, k)) + 1n
      const qHi = Number(bound >> 32n)
      const qLo = Number(bound & 0xffffffffn)
      for (let j = 0; j < run.polyModulusDegree; j++, word++) {
        const lo = source.getUint32(wordsAt + word * 8, true)
        const hi = source.getUint32(wordsAt + word * 8 + 4, true)
        if (hi > qHi || (hi === qHi && lo >= qLo)) {
          throw new HeError(
            'INVALID_INPUT',
            k === 0
              ? `residue ${word} is not below its prime ${prime}`
              : `residue ${word} is no rounded residue of ${prime} without ${k} bits`,
          )
        }
        if (w <= 32) put(lo, w)
        else {
          put(lo, 32)
          put(hi, w - 32)
        }
      }
    }
  }
  return Math.ceil(pos / 8)
}

/**
 * Reads a run from `payload` at byte `at` into SEAL's u64 words (`out`, from byte `wordsAt`);
 * returns the byte after the run. Every residue must be below its prime and the run's
 * unused last bits 0 — otherwise INVALID_ENVELOPE (SEAL is never handed an unreduced
 * coefficient); `what` names the run ("the packed ciphertext"). The caller has checked
 * that the payload holds the run.
 */
export function readResidueRun(
  run: ResidueRun,
  payload: Uint8Array,
  at: number,
  out: DataView,
  wordsAt: number,
  what: string,
): number {
  // Bit positions and 32-bit reads instead of a double accumulator: this runs on every
  // key upload and key load (≈ 100,000 residues for two elements at n = 4096).
  let pos = at * 8
  const bits = (w: number): number => {
    const byte = Math.floor(pos / 8) // not >>> 3: a payload may pass 2^29 bytes
    const shift = pos - byte * 8
    pos += w
    // Past the end a typed array reads undefined, which the bit operators take as 0.
    let word =
      ((payload[byte] as number) |
        ((payload[byte + 1] as number) << 8) |
        ((payload[byte + 2] as number) << 16) |
        ((payload[byte + 3] as number) << 24)) >>>
      shift
    if (shift + w > 32) word |= (payload[byte + 4] as number) << (32 - shift)
    return w === 32 ? word >>> 0 : word & ((1 << w) - 1)
  }
  let word = 0
  for (let p = 0; p < run.polys; p++) {
    const k = run.dropped?.[p] ?? 0
    for (const [i, prime] of run.primes.entries()) {
      if (k > 0) {
        // The writer's rounding: h in w − k bits, h·2^k below the prime (checked in layout: q < 2^32).
        const w = (run.widths[i] as number) - k
        const limit = droppedLimit(prime, k)
        const scale = 2 ** k
        for (let j = 0; j < run.polyModulusDegree; j++, word++) {
          const h = bits(w) >>> 0
          if (h > limit) {
            throw new HeError(
              'INVALID_ENVELOPE',
              `${what}'s residue ${j} of polynomial ${p}, prime ${i} rounds to ${h * scale}, not below the prime ${prime}`,
              { details: { polynomial: p, prime: i, coefficient: j } },
            )
          }
          out.setUint32(wordsAt + word * 8, h * scale, true)
          out.setUint32(wordsAt + word * 8 + 4, 0, true)
        }
        continue
      }
      const w = run.widths[i] as number
      const qHi = Number(prime >> 32n)
      const qLo = Number(prime & 0xffffffffn)
      for (let j = 0; j < run.polyModulusDegree; j++, word++) {
        const lo = w <= 32 ? bits(w) : bits(32)
        const hi = w <= 32 ? 0 : bits(w - 32)
        if (hi > qHi || (hi === qHi && lo >= qLo)) {
          throw new HeError(
            'INVALID_ENVELOPE',
            `${what}'s residue ${j} of polynomial ${p}, prime ${i} is ${BigInt(hi) * 2n ** 32n + BigInt(lo)}, not below the prime ${prime}`,
            { details: { polynomial: p, prime: i, coefficient: j } },
          )
        }
        out.setUint32(wordsAt + word * 8, lo, true)
        out.setUint32(wordsAt + word * 8 + 4, hi, true)
      }
    }
  }
  const last = Math.floor(pos / 8)
  if (pos % 8 !== 0 && (payload[last] as number) >>> (pos % 8) !== 0) {
    throw new HeError('INVALID_ENVELOPE', `${what} has bits set after its last residue`)
  }
  return Math.ceil(pos / 8)
}

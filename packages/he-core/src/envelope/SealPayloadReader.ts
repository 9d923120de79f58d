import { HeError } from '../errors/HeError.ts'
import { SEAL_HEADER_BYTES, SEAL_MAGIC, SEAL_VERSION_MAJOR, SEAL_VERSION_MINOR } from './sealBlobHeader.ts'

/**
 * A bounds-checked cursor over an uncompressed SEAL 4.1 payload. Every read that
 * would run past the end, and every 64-bit count above 2^53, is an INVALID_ENVELOPE
 * naming `what` (e.g. "galoisKeys payload"): the pre-parse never trusts a count
 * before it has checked it against the bytes that remain.
 */
export class SealPayloadReader {
  readonly #bytes: Uint8Array
  readonly #view: DataView
  readonly what: string
  #offset = 0

  constructor(bytes: Uint8Array, what: string) {
    this.#bytes = bytes
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    this.what = what
  }

  get offset(): number {
    return this.#offset
  }

  get remaining(): number {
    return this.#bytes.length - this.#offset
  }

  /** An INVALID_ENVELOPE error about this payload, with the byte offset it concerns. */
  fail(message: string, details: Record<string, unknown> = {}): HeError {
    return new HeError('INVALID_ENVELOPE', `${this.what}: ${message}`, {
      details: { offset: this.#offset, ...details },
    })
  }

  /** Fails unless `count` more bytes are there. */
  need(count: number, field: string): void {
    if (count > this.remaining) {
      throw this.fail(`${field} needs ${count} bytes at offset ${this.#offset}, but only ${this.remaining} remain`, {
        field,
      })
    }
  }

  skip(count: number, field: string): void {
    this.need(count, field)
    this.#offset += count
  }

  /**
   * Skips `count` u64 residues, each checked below its prime: residue w belongs to
   * `primes[⌊w / n⌋ mod primes.length]` (SEAL's order: polynomial, prime, coefficient).
   * What SEAL's load would refuse is refused here, without a SEAL exception.
   */
  residues(count: number, n: number, primes: readonly bigint[], field: string): void {
    this.need(count * 8, field)
    const highs = primes.map((p) => Number(p >> 32n))
    const lows = primes.map((p) => Number(p & 0xffffffffn))
    const view = this.#view
    const start = this.#offset
    for (let w = 0; w < count; w++) {
      const prime = Math.floor(w / n) % primes.length
      const lo = view.getUint32(start + w * 8, true)
      const hi = view.getUint32(start + w * 8 + 4, true)
      const high = highs[prime] as number
      if (hi > high || (hi === high && lo >= (lows[prime] as number))) {
        this.#offset = start + w * 8
        throw this.fail(`${field}: residue ${w} is not below its prime ${primes[prime]}`, { field, residue: w })
      }
    }
    this.#offset = start + count * 8
  }

  u8(field: string): number {
    this.need(1, field)
    const value = this.#view.getUint8(this.#offset)
    this.#offset += 1
    return value
  }

  /** A uint64 as a number; above 2^53 it cannot be a real count or size. */
  u64(field: string): number {
    this.need(8, field)
    const low = this.#view.getUint32(this.#offset, true)
    const high = this.#view.getUint32(this.#offset + 4, true)
    if (high >= 2 ** 21) throw this.fail(`${field} is ${(BigInt(high) << 32n) | BigInt(low)}, not a plausible count`)
    this.#offset += 8
    return high * 2 ** 32 + low
  }

  /** A uint64 as a bigint, for fields that are identifiers rather than counts. */
  u64Raw(): bigint {
    this.need(8, 'uint64')
    const value = this.#view.getBigUint64(this.#offset, true)
    this.#offset += 8
    return value
  }

  f64(field: string): number {
    this.need(8, field)
    const value = this.#view.getFloat64(this.#offset, true)
    this.#offset += 8
    return value
  }

  /**
   * A nested SEAL header (SEAL saves every member object with its own): magic, SEAL 4.1,
   * no compression (SEAL never compresses a nested object), and a size that fits.
   * Returns the offset where the nested object must end.
   */
  nestedHeader(field: string): number {
    const start = this.#offset
    this.need(SEAL_HEADER_BYTES, `${field} header`)
    const view = this.#view
    const magic = view.getUint16(start, true)
    if (magic !== SEAL_MAGIC) {
      throw this.fail(`${field} has no SEAL header at offset ${start} (found 0x${magic.toString(16).padStart(4, '0')})`)
    }
    const headerSize = view.getUint8(start + 2)
    const major = view.getUint8(start + 3)
    const minor = view.getUint8(start + 4)
    const compression = view.getUint8(start + 5)
    if (headerSize !== SEAL_HEADER_BYTES || major !== SEAL_VERSION_MAJOR || minor !== SEAL_VERSION_MINOR) {
      throw this.fail(`${field} header at offset ${start} is not a SEAL 4.1 header`)
    }
    if (compression !== 0 || view.getUint16(start + 6, true) !== 0) {
      throw this.fail(`${field} header at offset ${start} declares compression or reserved bytes; SEAL writes neither`)
    }
    const high = view.getUint32(start + 12, true)
    const size = high * 2 ** 32 + view.getUint32(start + 8, true)
    if (size < SEAL_HEADER_BYTES || size > this.#bytes.length - start) {
      throw this.fail(
        `${field} header at offset ${start} declares ${size} bytes, but ${this.#bytes.length - start} remain`,
      )
    }
    this.#offset += SEAL_HEADER_BYTES
    return start + size
  }

  /** Fails unless the cursor is exactly at `end` (a nested object's declared size was its real size). */
  expectAt(end: number, field: string): void {
    if (this.#offset !== end) {
      throw this.fail(`${field} declares it ends at offset ${end}, but its fields end at ${this.#offset}`)
    }
  }
}

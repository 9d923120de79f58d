import { HeError } from '../errors/HeError.ts'
import type { HeErrorCode } from '../errors/heErrorCodes.ts'
import { compressionFromCode, type SealCompression } from './envelopeKinds.ts'

/** SEAL's serialization header: 16 bytes in front of every saved SEAL object. */
export const SEAL_HEADER_BYTES = 16
/** `Serialization::seal_magic`, stored little-endian as `5e a1`. */
export const SEAL_MAGIC = 0xa15e
/** node-seal 7 bundles SEAL 4.1; its header says major 4, minor 1. */
export const SEAL_VERSION_MAJOR = 4
export const SEAL_VERSION_MINOR = 1

/** What SEAL's header of a payload says. */
export interface SealBlobHeader {
  compression: SealCompression
  /** Total bytes of the saved object, header included (SEAL's uint64 `size`). */
  size: number
}

/**
 * Checks the 16-byte SEAL header at the start of `payload` — magic 0xA15E, header
 * size 16, SEAL 4.1, known compression, reserved bytes zero, and a size equal to the
 * payload length — so SEAL is never handed a blob it would reject or misread (each
 * rejection inside SEAL leaks Emscripten stack; see NODE-SEAL-FACTS.md §4).
 * `code` is INVALID_INPUT when encoding and INVALID_ENVELOPE when decoding.
 */
export function checkSealBlobHeader(payload: Uint8Array, code: HeErrorCode): SealBlobHeader {
  const fail = (what: string) => new HeError(code, `the SEAL payload ${what}`)
  if (payload.length < SEAL_HEADER_BYTES) {
    throw fail(`is ${payload.length} bytes, shorter than SEAL's ${SEAL_HEADER_BYTES}-byte header`)
  }
  const view = new DataView(payload.buffer, payload.byteOffset, SEAL_HEADER_BYTES)
  const magic = view.getUint16(0, true)
  if (magic !== SEAL_MAGIC) {
    throw fail(`has magic 0x${magic.toString(16).padStart(4, '0')}, expected 0xa15e (not a SEAL object)`)
  }
  const headerSize = view.getUint8(2)
  if (headerSize !== SEAL_HEADER_BYTES)
    throw fail(`declares a ${headerSize}-byte header, expected ${SEAL_HEADER_BYTES}`)
  const major = view.getUint8(3)
  const minor = view.getUint8(4)
  if (major !== SEAL_VERSION_MAJOR || minor !== SEAL_VERSION_MINOR) {
    throw fail(`was saved by SEAL ${major}.${minor}, expected ${SEAL_VERSION_MAJOR}.${SEAL_VERSION_MINOR}`)
  }
  const compressionByte = view.getUint8(5)
  const compression = compressionFromCode(compressionByte)
  if (compression === undefined || compression === 'packed')
    throw fail(`has unknown compression mode ${compressionByte}`)
  if (view.getUint16(6, true) !== 0) throw fail('has non-zero reserved header bytes')
  const high = view.getUint32(12, true)
  const size = high * 2 ** 32 + view.getUint32(8, true)
  if (size !== payload.length) {
    throw fail(`header declares ${size} bytes but the payload is ${payload.length} bytes`)
  }
  return { compression, size }
}

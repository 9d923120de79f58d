/**
 * Byte layout of a sealbox envelope, format version 1 (see ENVELOPE.md). All integers
 * are little-endian, like SEAL's own header.
 *
 * ```
 *  0  3  magic "SBX"
 *  3  1  format version
 *  4  1  kind code
 *  5  1  flags (bit 0: seeded)
 *  6  1  compression code (SEAL's compr_mode_type)
 *  7  1  reserved, 0
 *  8 16  params fingerprint
 * 24 16  key-set id (all zero: none)
 * 40  8  payload length (uint64)
 * 48  4  meta length (uint32)
 * 52  m  meta: UTF-8 JSON object
 *  …  p  payload
 *  …  4  CRC-32 (IEEE) of every byte before it
 * ```
 */
export const ENVELOPE_MAGIC: readonly number[] = [0x53, 0x42, 0x58]

/** The format version this code writes and the only one it reads. */
export const ENVELOPE_FORMAT_VERSION = 1

export const OFFSET_VERSION = 3
export const OFFSET_KIND = 4
export const OFFSET_FLAGS = 5
export const OFFSET_COMPRESSION = 6
export const OFFSET_RESERVED = 7
export const OFFSET_FINGERPRINT = 8
export const OFFSET_KEY_SET_ID = 24
export const OFFSET_PAYLOAD_LENGTH = 40
export const OFFSET_META_LENGTH = 48

/** Bytes before the meta block. */
export const ENVELOPE_HEADER_BYTES = 52
/** Bytes of the CRC-32 trailer. */
export const ENVELOPE_TRAILER_BYTES = 4
/** The smallest possible envelope: header, `{}` and the trailer (an empty payload is never valid). */
export const ENVELOPE_MIN_BYTES = ENVELOPE_HEADER_BYTES + 2 + ENVELOPE_TRAILER_BYTES

/** Fingerprints and key-set ids are 16 bytes (32 lowercase hex characters). */
export const ID_BYTES = 16

/** Flag bit: the payload was saved from a seeded SEAL `Serializable*` object. */
export const FLAG_SEEDED = 0x01
/** Every flag bit this version knows; any other set bit is rejected. */
export const KNOWN_FLAGS = FLAG_SEEDED

/**
 * Upper bound on the meta JSON. The largest legitimate meta is a Galois key list of
 * all elements at n=32768 (~400 KB); the bound keeps a hostile length from making us
 * decode megabytes of text.
 */
export const MAX_META_BYTES = 1 << 20

/** Default cap on the envelopes in one bundle (a caller may set a lower or higher one). */
export const DEFAULT_MAX_BUNDLE_COUNT = 1024

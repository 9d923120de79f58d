/**
 * CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320; the zlib/PNG/gzip checksum).
 * Synchronous and dependency-free so it runs the same in Node, a browser tab and a
 * worker. Slicing-by-8 tables keep it fast enough to check multi-megabyte Galois keys
 * on every load (several hundred MB/s in V8).
 */

const TABLES: Uint32Array = buildTables()

function buildTables(): Uint32Array {
  const tables = new Uint32Array(8 * 256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    tables[n] = c >>> 0
  }
  for (let n = 0; n < 256; n++) {
    let c = tables[n] as number
    for (let t = 1; t < 8; t++) {
      c = (tables[c & 0xff] as number) ^ (c >>> 8)
      tables[t * 256 + n] = c >>> 0
    }
  }
  return tables
}

type NativeCrc32 = (bytes: Uint8Array, crc: number) => number

/**
 * Node's zlib.crc32 (22.2+; the same checksum, about 3× faster than the tables on
 * large inputs: a search query is checked twice, bundle and items). Looked up at run
 * time, like inflateSealPayload's zlib, so this module still loads in a browser.
 */
const nativeCrc32: NativeCrc32 | undefined = (
  (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.(
    'node:zlib',
  ) as { crc32?: NativeCrc32 } | undefined
)?.crc32

/** Below this many bytes the call into zlib costs more than the tables. */
const NATIVE_CRC_MIN_BYTES = 4096

/**
 * The CRC-32 of `bytes`, as an unsigned 32-bit number. Pass a previous result as
 * `crc` to continue a checksum over several chunks.
 */
export function crc32(bytes: Uint8Array, crc = 0): number {
  if (nativeCrc32 && bytes.length >= NATIVE_CRC_MIN_BYTES) return nativeCrc32(bytes, crc)
  return tableCrc32(bytes, crc)
}

/**
 * The same CRC-32 by the slicing-by-8 tables alone, whatever the length: what a browser
 * always runs, and what the tests compare with zlib on large inputs (where `crc32`
 * itself hands over to zlib in Node).
 */
export function tableCrc32(bytes: Uint8Array, crc = 0): number {
  const t = TABLES
  let c = ~crc
  const length = bytes.length
  const whole = length - (length % 8)
  let i = 0
  // Indexing a Uint32Array/Uint8Array in range never yields undefined; the casts
  // only satisfy noUncheckedIndexedAccess in this hot loop.
  for (; i < whole; i += 8) {
    const lo =
      c ^
      ((bytes[i] as number) |
        ((bytes[i + 1] as number) << 8) |
        ((bytes[i + 2] as number) << 16) |
        ((bytes[i + 3] as number) << 24))
    const hi =
      (bytes[i + 4] as number) |
      ((bytes[i + 5] as number) << 8) |
      ((bytes[i + 6] as number) << 16) |
      ((bytes[i + 7] as number) << 24)
    c =
      (t[1792 + (lo & 0xff)] as number) ^
      (t[1536 + ((lo >>> 8) & 0xff)] as number) ^
      (t[1280 + ((lo >>> 16) & 0xff)] as number) ^
      (t[1024 + (lo >>> 24)] as number) ^
      (t[768 + (hi & 0xff)] as number) ^
      (t[512 + ((hi >>> 8) & 0xff)] as number) ^
      (t[256 + ((hi >>> 16) & 0xff)] as number) ^
      (t[hi >>> 24] as number)
  }
  for (; i < length; i++) c = (t[(c ^ (bytes[i] as number)) & 0xff] as number) ^ (c >>> 8)
  return ~c >>> 0
}

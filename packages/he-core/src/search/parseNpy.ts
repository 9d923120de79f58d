import { HeError } from '../errors/HeError.ts'
import { SEARCH_MAX_ROWS } from './SearchConfigInput.ts'
import { type SearchDatabase, validateSearchDatabase } from './SearchDatabase.ts'

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59] // "\x93NUMPY"

function npyError(message: string): HeError {
  return new HeError('INVALID_INPUT', `.npy: ${message}`)
}

interface NpyHeader {
  descr: string
  fortranOrder: boolean
  shape: number[]
  dataOffset: number
}

/**
 * Where a (V, D) array sits in a .npy file: enough to refuse a database from its
 * first bytes (before reading V × D values) and to read any rows in place.
 */
export interface NpyLayout {
  rows: number
  dimension: number
  /** Bytes per value: 4 (`<f4`) or 8 (`<f8`). */
  width: 4 | 8
  /** Column-major: element (row, j) is at j·V + row. */
  fortranOrder: boolean
  /** Byte offset of the first value. */
  dataOffset: number
  /** dataOffset + V × D × width: the size a complete file has (at least). */
  totalBytes: number
}

/** The most bytes a .npy header may take: enough for any real header, bounded for a hostile one. */
export const NPY_MAX_HEADER_BYTES = 1 << 17

/** Reads the header of a NumPy .npy file (format versions 1.0, 2.0, 3.0). */
function readNpyHeader(bytes: Uint8Array): NpyHeader {
  if (bytes.length < 10 || MAGIC.some((byte, i) => bytes[i] !== byte)) {
    throw npyError('not a NumPy file (missing the \\x93NUMPY magic)')
  }
  const major = bytes[6] as number
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let headerLength: number
  let headerStart: number
  if (major === 1) {
    headerLength = view.getUint16(8, true)
    headerStart = 10
  } else if (major === 2 || major === 3) {
    if (bytes.length < 12) throw npyError('truncated header')
    headerLength = view.getUint32(8, true)
    headerStart = 12
  } else {
    throw npyError(`format version ${major}.${bytes[7]} is not supported (1.0, 2.0 and 3.0 are)`)
  }
  const dataOffset = headerStart + headerLength
  if (dataOffset > NPY_MAX_HEADER_BYTES) {
    throw npyError(
      `the header claims ${headerLength} bytes; at most ${NPY_MAX_HEADER_BYTES - headerStart} are accepted`,
    )
  }
  if (dataOffset > bytes.length) throw npyError('truncated header')
  const header = new TextDecoder(major === 3 ? 'utf-8' : 'latin1').decode(bytes.subarray(headerStart, dataOffset))
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(header)?.[1]
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(header)?.[1]
  const shapeText = /'shape'\s*:\s*\(([^)]*)\)/.exec(header)?.[1]
  if (descr === undefined || fortran === undefined || shapeText === undefined) {
    throw npyError(`header ${JSON.stringify(header.trim())} lacks descr, fortran_order or shape`)
  }
  const shape = shapeText
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      const value = Number(part.replace(/L$/, ''))
      if (!Number.isSafeInteger(value) || value < 0) throw npyError(`shape entry ${JSON.stringify(part)} is invalid`)
      return value
    })
  return { descr, fortranOrder: fortran === 'True', shape, dataOffset }
}

/**
 * Reads the layout of a float32/float64 (V, D) .npy file from its first bytes (at least
 * the header: `NPY_MAX_HEADER_BYTES` always suffice). Refuses other dtypes, shapes and
 * more than `SEARCH_MAX_ROWS` rows; does not look at the values.
 */
export function readNpyLayout(input: Uint8Array): NpyLayout {
  const bytes = new Uint8Array(input.buffer, input.byteOffset, input.byteLength)
  const header = readNpyHeader(bytes)
  const width = header.descr === '<f4' ? 4 : header.descr === '<f8' ? 8 : 0
  if (width === 0) {
    throw npyError(`dtype ${header.descr} is not supported; save the array as float32 ('<f4') or float64 ('<f8')`)
  }
  if (header.shape.length !== 2) {
    throw npyError(`expected a 2-D array (rows, dimension), got shape (${header.shape.join(', ')})`)
  }
  const [rows, dimension] = header.shape as [number, number]
  if (rows < 1 || dimension < 1) throw npyError(`shape (${rows}, ${dimension}) has no values`)
  if (rows > SEARCH_MAX_ROWS) throw npyError(`${rows} rows, more than the ${SEARCH_MAX_ROWS} allowed`)
  return {
    rows,
    dimension,
    width,
    fortranOrder: header.fortranOrder,
    dataOffset: header.dataOffset,
    totalBytes: header.dataOffset + rows * dimension * width,
  }
}

/**
 * Parses a NumPy .npy file holding a 2-D array of shape (V, D) — little-endian
 * float32 (`<f4`, the usual embedding format) or float64 (`<f8`) — from bytes, so it
 * runs in browsers too. Ids are the row numbers 0…V−1.
 */
export function parseNpy(input: Uint8Array): SearchDatabase {
  const bytes = new Uint8Array(input.buffer, input.byteOffset, input.byteLength)
  const { rows, dimension, width, fortranOrder, dataOffset, totalBytes } = readNpyLayout(bytes)
  const count = rows * dimension
  if (bytes.length < totalBytes) {
    throw npyError(`truncated: shape (${rows}, ${dimension}) needs ${totalBytes} bytes, the file has ${bytes.length}`)
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset + dataOffset, count * width)
  const vectors = new Float64Array(count)
  for (let i = 0; i < count; i++) {
    // Fortran order stores column by column: element (row, j) is at j·V + row.
    const target = fortranOrder ? (i % rows) * dimension + Math.floor(i / rows) : i
    vectors[target] = width === 4 ? view.getFloat32(i * 4, true) : view.getFloat64(i * 8, true)
  }
  const ids = Array.from({ length: rows }, (_, row) => row)
  return validateSearchDatabase({ dimension, rows, vectors, ids })
}

/** Writes a float32 .npy file of shape (V, D) (used by tests and tools to make fixtures). */
export function encodeNpyFloat32(vectors: ArrayLike<number>, rows: number, dimension: number): Uint8Array {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${rows}, ${dimension}), }`
  // The data starts on a 64-byte boundary and the header ends with a newline (NEP 1).
  const unpadded = 10 + header.length + 1
  header += ' '.repeat((64 - (unpadded % 64)) % 64)
  header += '\n'
  const out = new Uint8Array(10 + header.length + rows * dimension * 4)
  out.set(MAGIC)
  out[6] = 1
  out[7] = 0
  const view = new DataView(out.buffer)
  view.setUint16(8, header.length, true)
  for (let i = 0; i < header.length; i++) out[10 + i] = header.charCodeAt(i)
  for (let i = 0; i < rows * dimension; i++) view.setFloat32(10 + header.length + i * 4, vectors[i] as number, true)
  return out
}

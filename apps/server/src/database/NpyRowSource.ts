import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import { basename } from 'node:path'
import { HeError } from '@sealbox/he-core'
import { NPY_MAX_HEADER_BYTES, type NpyLayout, readNpyLayout, type SearchRowSource } from '@sealbox/he-core/search'

/**
 * A .npy file's rows read in place, a block of rows at a time (synchronous reads: it
 * runs in a worker, which does nothing else while it processes). Neither the file nor
 * its values as doubles are ever held whole: at V = 1,000,000 × D = 384 that is 1.5 GB
 * of float32 and 3 GB of float64 a worker no longer allocates. Close it when done.
 */
export class NpyRowSource implements SearchRowSource, Disposable {
  readonly rows: number
  readonly dimension: number
  readonly layout: NpyLayout
  readonly #path: string
  #fd: number | undefined

  private constructor(path: string, fd: number, layout: NpyLayout) {
    this.#path = path
    this.#fd = fd
    this.layout = layout
    this.rows = layout.rows
    this.dimension = layout.dimension
  }

  /** Opens the file and reads its header; a truncated file or an unsupported dtype is refused here. */
  static open(path: string): NpyRowSource {
    let fd: number
    try {
      fd = openSync(path, 'r')
    } catch (error) {
      throw new HeError('INVALID_INPUT', `DATABASE ${basename(path)} cannot be read: ${(error as Error).message}`, {
        cause: error,
      })
    }
    try {
      const size = fstatSync(fd).size
      const head = new Uint8Array(Math.min(size, NPY_MAX_HEADER_BYTES))
      readSync(fd, head, 0, head.byteLength, 0)
      const layout = readNpyLayout(head)
      if (size < layout.totalBytes) {
        throw new HeError(
          'INVALID_INPUT',
          `.npy: truncated: shape (${layout.rows}, ${layout.dimension}) needs ${layout.totalBytes} bytes, the file has ${size}`,
        )
      }
      return new NpyRowSource(path, fd, layout)
    } catch (error) {
      closeSync(fd)
      throw error
    }
  }

  readRows(firstRow: number, count: number): Float64Array {
    const fd = this.#fd
    if (fd === undefined) throw new HeError('INTERNAL', `DATABASE ${basename(this.#path)} was closed`)
    const { width, dataOffset, fortranOrder, rows } = this.layout
    const d = this.dimension
    const out = new Float64Array(count * d)
    if (!fortranOrder) {
      const bytes = Buffer.allocUnsafe(count * d * width)
      this.#readFully(fd, bytes, dataOffset + firstRow * d * width)
      for (let i = 0; i < count * d; i++) {
        out[i] = width === 4 ? bytes.readFloatLE(i * 4) : bytes.readDoubleLE(i * 8)
      }
      return out
    }
    // Column-major: element (row, j) is at j·V + row, so one read per column.
    const column = Buffer.allocUnsafe(count * width)
    for (let j = 0; j < d; j++) {
      this.#readFully(fd, column, dataOffset + (j * rows + firstRow) * width)
      for (let i = 0; i < count; i++) {
        out[i * d + j] = width === 4 ? column.readFloatLE(i * 4) : column.readDoubleLE(i * 8)
      }
    }
    return out
  }

  rowName(row: number): string {
    return `row ${row}`
  }

  #readFully(fd: number, into: Buffer, position: number): void {
    let done = 0
    while (done < into.byteLength) {
      const read = readSync(fd, into, done, into.byteLength - done, position + done)
      if (read === 0) {
        throw new HeError(
          'INVALID_INPUT',
          `DATABASE ${basename(this.#path)} ended early: was it changed while loading?`,
        )
      }
      done += read
    }
  }

  close(): void {
    if (this.#fd === undefined) return
    closeSync(this.#fd)
    this.#fd = undefined
  }

  [Symbol.dispose](): void {
    this.close()
  }
}

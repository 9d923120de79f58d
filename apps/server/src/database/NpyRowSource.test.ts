import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { encodeNpyFloat32, parseNpy } from '@sealbox/he-core/search'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NpyRowSource } from './NpyRowSource.ts'

let dir: string

/** A .npy file of any dtype and order, written by hand (NEP 1 header, data on a 64-byte boundary). */
function npyBytes(
  values: readonly number[],
  rows: number,
  dim: number,
  dtype: '<f4' | '<f8',
  fortran: boolean,
): Uint8Array {
  let header = `{'descr': '${dtype}', 'fortran_order': ${fortran ? 'True' : 'False'}, 'shape': (${rows}, ${dim}), }`
  header += `${' '.repeat((64 - ((10 + header.length + 1) % 64)) % 64)}\n`
  const width = dtype === '<f4' ? 4 : 8
  const out = new Uint8Array(10 + header.length + rows * dim * width)
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0])
  const view = new DataView(out.buffer)
  view.setUint16(8, header.length, true)
  for (let i = 0; i < header.length; i++) out[10 + i] = header.charCodeAt(i)
  const base = 10 + header.length
  for (let row = 0; row < rows; row++) {
    for (let j = 0; j < dim; j++) {
      const value = values[row * dim + j] as number
      const at = fortran ? j * rows + row : row * dim + j
      if (width === 4) view.setFloat32(base + at * 4, value, true)
      else view.setFloat64(base + at * 8, value, true)
    }
  }
  return out
}

describe('NpyRowSource reads rows in place', () => {
  const rows = 37
  const dim = 5
  const values = Array.from({ length: rows * dim }, (_, i) => Math.sin(i + 1) * (i % 3 === 0 ? 1e-3 : 1))

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sealbox-npy-rows-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  for (const dtype of ['<f4', '<f8'] as const) {
    for (const fortran of [false, true]) {
      it(`${dtype}, ${fortran ? 'Fortran' : 'C'} order: any range of rows equals parseNpy's values`, async () => {
        const bytes = npyBytes(values, rows, dim, dtype, fortran)
        const path = join(dir, `${dtype.slice(1)}-${fortran}.npy`)
        await writeFile(path, bytes)
        const whole = parseNpy(bytes)
        using source = NpyRowSource.open(path)
        expect([source.rows, source.dimension]).toEqual([rows, dim])
        for (const [first, count] of [
          [0, rows],
          [0, 1],
          [36, 1],
          [10, 17],
        ] as const) {
          expect(Array.from(source.readRows(first, count)), `rows ${first}+${count}`).toEqual(
            Array.from(whole.vectors.subarray(first * dim, (first + count) * dim)),
          )
        }
      })
    }
  }

  it('refuses a file shorter than its header says when opened, and one cut while it is read', async () => {
    const path = join(dir, 'cut.npy')
    const bytes = encodeNpyFloat32(values, rows, dim)
    await writeFile(path, bytes.subarray(0, bytes.byteLength - 1))
    expect(() => NpyRowSource.open(path)).toThrow(/truncated: shape \(37, 5\) needs \d+ bytes, the file has \d+/)
    await writeFile(path, bytes)
    using source = NpyRowSource.open(path)
    await truncate(path, bytes.byteLength - 20)
    expect(() => source.readRows(30, 7)).toThrow(/cut\.npy ended early: was it changed while loading\?/)
    source.close()
    expect(() => source.readRows(0, 1)).toThrow(/was closed/)
  })

  it('refuses what is not a .npy file, naming the file', async () => {
    const path = join(dir, 'text.npy')
    await writeFile(path, 'id,vector\n1,2\n')
    expect(() => NpyRowSource.open(path)).toThrow(/not a NumPy file/)
    expect(() => NpyRowSource.open(join(dir, 'absent.npy'))).toThrow(/DATABASE absent\.npy cannot be read/)
  })
})

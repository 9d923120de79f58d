import { describe, expect, it } from 'vitest'
import { HeError } from '../errors/HeError.ts'
import { encodeNpyFloat32, parseNpy } from './parseNpy.ts'
import { parseSearchDatabase, searchDatabaseFormatOf } from './parseSearchDatabase.ts'
import { plaintextSearchScores } from './plaintextSearchScores.ts'
import { resolveSearchConfig } from './SearchConfig.ts'
import { scaleDatabaseVectors, scaleQueryVector } from './scaleVectors.ts'
import { syntheticSearchDatabase, syntheticSearchQuery, syntheticSearchRows } from './syntheticSearchDatabase.ts'
import { topKIndices } from './topK.ts'

const utf8 = (text: string) => new TextEncoder().encode(text)

function failure(fn: () => unknown): HeError {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(HeError)
    return error as HeError
  }
  expect.unreachable('expected an HeError')
}

describe('database formats', () => {
  it('parses JSONL with ids and metadata', () => {
    const db = parseSearchDatabase(
      utf8(
        '{"id":"a","vector":[1,0,0],"metadata":{"title":"x"}}\n\n{"id":7,"vector":[0,0.5,-1.5]}\r\n{"id":"c","vector":[1e-3,2,3]}\n',
      ),
      'jsonl',
    )
    expect(db.rows).toBe(3)
    expect(db.dimension).toBe(3)
    expect(Array.from(db.vectors)).toEqual([1, 0, 0, 0, 0.5, -1.5, 1e-3, 2, 3])
    expect(db.ids).toEqual(['a', 7, 'c'])
    expect(db.metadata).toEqual([{ title: 'x' }, undefined, undefined])
  })

  it('names the line and the fault in bad JSONL', () => {
    expect(
      failure(() => parseSearchDatabase(utf8('{"id":1,"vector":[1,2]}\n{"id":2,"vector":[1]}'), 'jsonl')).message,
    ).toBe('JSONL line 2: "vector" has 1 components, earlier rows have 2')
    expect(failure(() => parseSearchDatabase(utf8('{"id":1,"vector":[1,"x"]}'), 'jsonl')).message).toMatch(
      /line 1: "vector"\[1\] is "x"/,
    )
    expect(failure(() => parseSearchDatabase(utf8('{"id":1,"vector":[1]}\n{oops'), 'jsonl')).message).toMatch(
      /line 2 is not valid JSON/,
    )
    expect(failure(() => parseSearchDatabase(utf8('{"vector":[1]}'), 'jsonl')).message).toMatch(/"id" must be/)
    expect(
      failure(() => parseSearchDatabase(utf8('{"id":1,"vector":[1]}\n{"id":1,"vector":[2]}'), 'jsonl')).message,
    ).toMatch(/row 1 repeats id 1/)
    expect(failure(() => parseSearchDatabase(utf8('\n\n'), 'jsonl')).message).toMatch(/no rows/)
  })

  it('parses CSV with a header (id, metadata, components) and without', () => {
    const withHeader = parseSearchDatabase(
      utf8('\uFEFFid,x,y,metadata\r\nrow-1,1,2,"{""tag"":1}"\nrow-2,-0.5,3e2,"plain, text"\n'),
      'csv',
    )
    expect(withHeader.ids).toEqual(['row-1', 'row-2'])
    expect(Array.from(withHeader.vectors)).toEqual([1, 2, -0.5, 300])
    expect(withHeader.metadata).toEqual([{ tag: 1 }, 'plain, text'])
    const bare = parseSearchDatabase(utf8('1,2,3\n4,5,6'), 'csv')
    expect(bare.ids).toEqual([0, 1])
    expect(bare.dimension).toBe(3)
    expect(failure(() => parseSearchDatabase(utf8('a,b\n1,2\n3'), 'csv')).message).toBe(
      'CSV line 3: 1 fields, the first row has 2',
    )
    expect(failure(() => parseSearchDatabase(utf8('id,x\nr,abc'), 'csv')).message).toMatch(
      /line 2, column 2: "abc" is not a number/,
    )
    expect(failure(() => parseSearchDatabase(utf8('1,"2'), 'csv')).message).toMatch(/never closed/)
  })

  it('round-trips float32 .npy and reads float64 and Fortran order', () => {
    const db = syntheticSearchDatabase({ rows: 7, dimension: 5, seed: 3 })
    const parsed = parseNpy(encodeNpyFloat32(db.vectors, 7, 5))
    expect(parsed.rows).toBe(7)
    expect(parsed.dimension).toBe(5)
    expect(Array.from(parsed.vectors)).toEqual(Array.from(Float32Array.from(db.vectors)))
    expect(parsed.ids).toEqual([0, 1, 2, 3, 4, 5, 6])
    // Hand-made float64, Fortran-ordered 2 × 3: columns stored one after another.
    const header = "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }"
    const padded = `${header}${' '.repeat(64 - ((10 + header.length + 1) % 64))}\n`
    const bytes = new Uint8Array(10 + padded.length + 6 * 8)
    bytes.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0])
    new DataView(bytes.buffer).setUint16(8, padded.length, true)
    bytes.set(utf8(padded), 10)
    const values = new Float64Array([1, 4, 2, 5, 3, 6])
    bytes.set(new Uint8Array(values.buffer), 10 + padded.length)
    expect(Array.from(parseSearchDatabase(bytes, 'npy').vectors)).toEqual([1, 2, 3, 4, 5, 6])
  })

  it('refuses bad .npy files with the reason', () => {
    expect(failure(() => parseNpy(utf8('not numpy at all'))).message).toMatch(/missing the \\x93NUMPY magic/)
    const truncated = encodeNpyFloat32([1, 2, 3, 4], 2, 2).subarray(0, 140)
    expect(failure(() => parseNpy(truncated)).message).toMatch(/truncated: shape \(2, 2\) needs 144 bytes/)
    const int32 = encodeNpyFloat32([1, 2], 1, 2)
    int32.set(utf8('<i4'), new TextDecoder('latin1').decode(int32).indexOf('<f4'))
    expect(failure(() => parseNpy(int32)).message).toMatch(/dtype <i4 is not supported/)
    const nan = encodeNpyFloat32([1, Number.NaN], 1, 2)
    expect(failure(() => parseNpy(nan)).message).toMatch(/row 0 \(id 0\) component 1 is NaN/)
  })

  it('maps file names to formats', () => {
    expect(searchDatabaseFormatOf('a/b/emb.NPY')).toBe('npy')
    expect(searchDatabaseFormatOf('x.ndjson')).toBe('jsonl')
    expect(searchDatabaseFormatOf('x.csv')).toBe('csv')
    expect(searchDatabaseFormatOf('x.parquet')).toBeUndefined()
  })
})

describe('synthetic databases', () => {
  it('are deterministic per seed and unit-norm', () => {
    const a = syntheticSearchDatabase({ rows: 50, dimension: 16, seed: 42 })
    const b = syntheticSearchDatabase({ rows: 50, dimension: 16, seed: 42 })
    const c = syntheticSearchDatabase({ rows: 50, dimension: 16, seed: 43 })
    expect(Array.from(a.vectors)).toEqual(Array.from(b.vectors))
    expect(Array.from(a.vectors)).not.toEqual(Array.from(c.vectors))
    for (let row = 0; row < 50; row++) {
      const v = a.vectors.subarray(row * 16, row * 16 + 16)
      expect(Math.hypot(...v)).toBeCloseTo(1, 12)
    }
    // A fixed value pins the generator across platforms and releases.
    expect(Array.from(a.vectors.subarray(0, 3))).toEqual([
      -0.3141944834932584, -0.2311766941892713, -0.14948255713396508,
    ])
    expect(syntheticSearchDatabase({ rows: 2, dimension: 2, withMetadata: true }).metadata).toEqual([
      { name: 'item 0' },
      { name: 'item 1' },
    ])
    expect(Array.from(syntheticSearchQuery(8, 1))).toEqual(Array.from(syntheticSearchQuery(8, 1)))
  })
})

describe('scaling', () => {
  it('normalises for cosine, checks maxNorm for dot, and rounds', () => {
    const cosine = resolveSearchConfig({ rows: 1, dimension: 2 })
    const s = cosine.scale
    expect(Array.from(scaleQueryVector(cosine, [3, 4]))).toEqual([Math.round((s * 3) / 5), Math.round((s * 4) / 5)])
    expect(failure(() => scaleQueryVector(cosine, [0, 0])).message).toMatch(/zero vector/)
    expect(failure(() => scaleQueryVector(cosine, [1, 2, 3])).message).toMatch(/3 components.*D=2/)
    const dot = resolveSearchConfig({ rows: 2, dimension: 2, metric: 'dot', maxNorm: 2 })
    expect(dot.scale).toBe(Math.floor((Math.sqrt(32768) - Math.sqrt(2) / 2) / 2))
    expect(Array.from(scaleQueryVector(dot, [1, -1]))).toEqual([dot.scale, -dot.scale])
    const tooLong = failure(() =>
      scaleDatabaseVectors(dot, { rows: 2, dimension: 2, vectors: new Float64Array([1, 0, 2, 1]), ids: ['a', 'b'] }),
    )
    expect(tooLong.code).toBe('VALUE_OUT_OF_RANGE')
    expect(tooLong.message).toMatch(/^row 1 \(id b\) has norm 2\.23/)
  })

  it('gives plaintext scores whose top-k is a stable ranking', () => {
    const db = syntheticSearchDatabase({ rows: 500, dimension: 10, seed: 5 })
    const config = resolveSearchConfig({ rows: 500, dimension: 10 })
    const scores = plaintextSearchScores(config, db, syntheticSearchQuery(10, 5))
    const expected = Array.from(scores.keys())
      .sort((a, b) => (scores[b] as number) - (scores[a] as number) || a - b)
      .slice(0, 25)
    expect(topKIndices(scores, 25)).toEqual(expected)
    expect(topKIndices([1, 3, 3, 2], 3)).toEqual([1, 2, 3])
    expect(topKIndices([1, 2], 10)).toEqual([1, 0])
    for (const score of scores) expect(Math.abs(score)).toBeLessThanOrEqual((config.plainModulus - 1) / 2)
  })
})

describe('syntheticSearchRows', () => {
  it('reads, a block at a time and in any order, the rows syntheticSearchDatabase holds', () => {
    const whole = syntheticSearchDatabase({ rows: 9000, dimension: 12, seed: 4 })
    const rows = syntheticSearchRows({ rows: 9000, dimension: 12, seed: 4 })
    const read = (first: number, count: number) => Array.from(rows.readRows(first, count))
    const held = (first: number, count: number) => Array.from(whole.vectors.subarray(first * 12, (first + count) * 12))
    expect(read(0, 4096)).toEqual(held(0, 4096))
    expect(read(4096, 4096)).toEqual(held(4096, 4096))
    // Skipping ahead and going back restart or advance the one stream.
    expect(read(8500, 500)).toEqual(held(8500, 500))
    expect(read(10, 3)).toEqual(held(10, 3))
    expect(() => rows.readRows(8999, 2)).toThrow(/outside the 9000 synthetic rows/)
  })
})

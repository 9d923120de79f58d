import { describe, expect, it } from 'vitest'
import { cosineTopK, recallAt } from './recallAt.ts'

const database = (rows: number[][]) => ({
  rows: rows.length,
  dimension: rows[0]?.length ?? 0,
  vectors: Float64Array.from(rows.flat()),
  ids: rows.map((_, i) => i),
})

describe('cosineTopK', () => {
  it('ranks by cosine, not by dot product, ties to the lower row', () => {
    // Row 2 has the largest dot product with q but a worse angle than rows 0 and 3.
    const db = database([
      [1, 0],
      [0, 1],
      [3, 3],
      [2, 0],
      [-1, 0],
    ])
    expect(cosineTopK(db, [1, 0.1], 3)).toEqual([0, 3, 2])
    expect(cosineTopK(db, [0, 2], 2)).toEqual([1, 2])
  })

  it('ranks only the candidate rows when given, naming them by their row', () => {
    const db = database([
      [1, 0],
      [0, 1],
      [3, 3],
      [2, 0],
    ])
    expect(cosineTopK(db, [1, 0.1], 2, [1, 2])).toEqual([2, 1])
    expect(cosineTopK(db, [1, 0.1], 5, [1, 3])).toEqual([3, 1])
  })

  it('puts a zero row last', () => {
    const db = database([
      [0, 0],
      [-1, -0.01],
    ])
    expect(cosineTopK(db, [1, 0], 2)).toEqual([1, 0])
  })
})

describe('recallAt', () => {
  it('counts the true rows found, whatever their order', () => {
    expect(recallAt([3, 1, 2, 9], [1, 2, 3, 4])).toBe(0.75)
    expect(recallAt([4, 3, 2, 1], [1, 2, 3, 4])).toBe(1)
    expect(recallAt([], [1, 2])).toBe(0)
    expect(recallAt([5], [])).toBe(1)
  })
})

import { describe, expect, it } from 'vitest'
import { SearchDatabaseSourceSchema, searchDatabaseSourceLabel } from './servedSearchDatabase.ts'

describe('SearchDatabaseSource', () => {
  it('labels a synthetic source by its seed and a file by its name', () => {
    expect(searchDatabaseSourceLabel({ type: 'synthetic', seed: 7, rows: 300, dimension: 6 })).toBe(
      'synthetic (seed 7)',
    )
    expect(searchDatabaseSourceLabel({ type: 'file', name: 'docs.jsonl', format: 'jsonl' })).toBe('docs.jsonl')
  })

  it('refuses an unknown type or format rather than guessing', () => {
    expect(SearchDatabaseSourceSchema.safeParse('synthetic (seed 7)').success).toBe(false)
    expect(SearchDatabaseSourceSchema.safeParse({ type: 'file', name: 'x.parquet', format: 'parquet' }).success).toBe(
      false,
    )
  })
})

import { describe, expect, it } from 'vitest'
import { metadataColumns } from './metadataColumns.ts'

describe('metadataColumns', () => {
  it('one column per field of flat metadata, leaving out a field that only repeats the id', () => {
    const hits = [
      { id: 'Fe', metadata: { name: 'Iron', symbol: 'Fe', number: 26 } },
      { id: 'Hg', metadata: { name: 'Mercury', symbol: 'Hg', number: 80 } },
    ]
    expect(metadataColumns(hits)).toEqual(['name', 'number'])
  })

  it('keeps a field that differs from the id for any hit', () => {
    const hits = [
      { id: 1, metadata: { label: '1' } },
      { id: 2, metadata: { label: 'two' } },
    ]
    expect(metadataColumns(hits)).toEqual(['label'])
  })

  it('one Metadata column for nested metadata, none without metadata', () => {
    expect(metadataColumns([{ id: 0, metadata: { tags: ['a'] } }])).toEqual(['Metadata'])
    expect(metadataColumns([{ id: 0, metadata: undefined }])).toEqual([])
  })
})

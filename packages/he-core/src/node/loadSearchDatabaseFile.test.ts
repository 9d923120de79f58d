import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HeError } from '../errors/HeError.ts'
import { encodeNpyFloat32 } from '../search/parseNpy.ts'
import { loadSearchDatabaseFile } from './loadSearchDatabaseFile.ts'

let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sealbox-search-'))
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('loadSearchDatabaseFile', () => {
  it('reads .npy, .jsonl and .csv files by extension', async () => {
    await writeFile(join(dir, 'a.npy'), encodeNpyFloat32([1, 2, 3, 4, 5, 6], 3, 2))
    await writeFile(join(dir, 'b.jsonl'), '{"id":"x","vector":[1,2]}\n{"id":"y","vector":[3,4]}\n')
    await writeFile(join(dir, 'c.data'), 'id,a,b\nr1,1,2\n')
    const npy = await loadSearchDatabaseFile(join(dir, 'a.npy'))
    expect([npy.rows, npy.dimension]).toEqual([3, 2])
    const jsonl = await loadSearchDatabaseFile(join(dir, 'b.jsonl'))
    expect(jsonl.ids).toEqual(['x', 'y'])
    const csv = await loadSearchDatabaseFile(join(dir, 'c.data'), 'csv')
    expect(csv.ids).toEqual(['r1'])
  })

  it('says what is wrong with the path', async () => {
    await expect(loadSearchDatabaseFile(join(dir, 'missing.npy'))).rejects.toThrow(/cannot be read/)
    await expect(loadSearchDatabaseFile(join(dir, 'c.data'))).rejects.toBeInstanceOf(HeError)
  })
})

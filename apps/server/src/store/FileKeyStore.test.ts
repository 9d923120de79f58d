import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { HeError } from '@sealbox/he-core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { FileKeyStore } from './FileKeyStore.ts'
import type { KeySetFacts } from './KeyStore.ts'
import { kernelFormName } from './kernelFormBlob.ts'

const facts: KeySetFacts = {
  keySetId: 'ab'.repeat(16),
  fingerprint: 'cd'.repeat(16),
  kinds: ['galoisKeys'],
  galoisElements: [3, 5],
}
const limits = { quotaBytes: 1000, maxKeySets: 3 }

function bytes(length: number, fill: number): Uint8Array {
  return new Uint8Array(length).fill(fill)
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    return (error as HeError).code
  }
  return 'none'
}

describe('FileKeyStore', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sealbox-store-'))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('reads an index written before kernel forms, then adds one; a stray form file is swept', async () => {
    const store = await FileKeyStore.open(dir, limits)
    const { record } = await store.put('acme', 'keys-1', facts, bytes(100, 1))
    const indexPath = join(dir, 'keysets', 'acme', 'index.json')
    const index = JSON.parse(await readFile(indexPath, 'utf8'))
    delete index.kernelForms
    await writeFile(indexPath, JSON.stringify(index))
    const form = kernelFormName('cd'.repeat(16), [3, 5])
    // A form file the index does not name (a crash between the two writes).
    const stray = join(dir, 'keysets', 'acme', 'blobs', `${record.sha256}.${form}.sbkf`)
    await writeFile(stray, bytes(40, 9))
    const reopened = await FileKeyStore.open(dir, limits)
    expect(await reopened.get('acme', 'keys-1')).toEqual(record)
    expect(await reopened.usage('acme')).toBe(100)
    expect(await reopened.readKernelForm(record, form)).toBeUndefined()
    expect(await reopened.putKernelForm('acme', record.sha256, { form, bytes: bytes(64, 7) })).toBe(true)
    expect(await reopened.usage('acme')).toBe(100 + 36 + 64)
    expect((await reopened.readKernelForm(record, form))?.byteLength).toBe(100)
  })

  it('stores, lists, reads, replaces and deletes per tenant; state survives reopening', async () => {
    const store = await FileKeyStore.open(dir, limits)
    const { record: first } = await store.put('acme', 'keys-1', facts, bytes(100, 1))
    expect(first).toMatchObject({ tenant: 'acme', id: 'keys-1', bytes: 100, ...facts })
    await store.put('acme', 'keys-2', facts, bytes(50, 2))
    await store.put('beta', 'keys-1', facts, bytes(10, 3))
    expect((await store.list('acme')).map((r) => r.id)).toEqual(['keys-1', 'keys-2'])
    expect(await store.usage('acme')).toBe(150)
    expect(await store.read(first)).toEqual(bytes(100, 1))

    const { record: replaced } = await store.put('acme', 'keys-1', facts, bytes(120, 4))
    expect(replaced.createdAt).toBe(first.createdAt)
    expect(replaced.sha256).not.toBe(first.sha256)
    expect(await codeOf(store.read(first))).toBe('NOT_FOUND')

    const reopened = await FileKeyStore.open(dir, limits)
    expect((await reopened.list('acme')).map((r) => [r.id, r.bytes])).toEqual([
      ['keys-1', 120],
      ['keys-2', 50],
    ])
    expect(await reopened.read(replaced)).toEqual(bytes(120, 4))
    expect(await reopened.delete('acme', 'keys-2')).toBe(true)
    expect(await reopened.delete('acme', 'keys-2')).toBe(false)
    expect((await reopened.list('beta')).map((r) => r.id)).toEqual(['keys-1'])
    // Only the live blob of each tenant is left on disk.
    expect(await readdir(join(dir, 'keysets', 'acme', 'blobs'))).toEqual([`${replaced.sha256}.sbx`])
  })

  it('keeps tenants apart: another tenant sees nothing and deletes nothing', async () => {
    const store = await FileKeyStore.open(dir, limits)
    await store.put('acme', 'shared-name', facts, bytes(10, 1))
    expect(await store.get('beta', 'shared-name')).toBeUndefined()
    expect(await store.list('beta')).toEqual([])
    expect(await store.delete('beta', 'shared-name')).toBe(false)
    expect(await store.get('acme', 'shared-name')).toBeDefined()
  })

  it('enforces the quota and the key-set count, counting a replacement as a replacement', async () => {
    const store = await FileKeyStore.open(dir, limits)
    await store.put('acme', 'a', facts, bytes(600, 1))
    expect(await codeOf(store.put('acme', 'b', facts, bytes(500, 2)))).toBe('QUOTA_EXCEEDED')
    await store.put('acme', 'a', facts, bytes(900, 3))
    await store.put('acme', 'b', facts, bytes(50, 4))
    await store.put('acme', 'c', facts, bytes(10, 5))
    expect(await codeOf(store.put('acme', 'd', facts, bytes(1, 6)))).toBe('LIMIT_EXCEEDED')
    expect(await store.usage('acme')).toBe(960)
  })

  it('refuses names that are not safe path segments', async () => {
    const store = await FileKeyStore.open(dir, limits)
    for (const name of ['..', '.hidden', 'a/b', '', 'x'.repeat(65)]) {
      expect(await codeOf(store.put('acme', name, facts, bytes(1, 1)))).toBe('INVALID_INPUT')
      expect(await codeOf(store.put(name, 'ok', facts, bytes(1, 1)))).toBe('INVALID_INPUT')
    }
  })

  it('a crash mid-upload leaves the old state: temp files and unreferenced blobs are swept at start', async () => {
    const store = await FileKeyStore.open(dir, limits)
    const { record: kept } = await store.put('acme', 'keys', facts, bytes(100, 1))
    const tenantDir = join(dir, 'keysets', 'acme')
    // What a crash leaves behind: a half-written temp blob, a complete blob whose index
    // swap never happened, and a half-written temp index.
    await writeFile(join(tenantDir, 'blobs', '.partial.tmp'), bytes(7, 9))
    await writeFile(join(tenantDir, 'blobs', `${'e'.repeat(64)}.sbx`), bytes(200, 2))
    await writeFile(join(tenantDir, '.index.json.x.tmp'), '{"version":1,"rec')
    const reopened = await FileKeyStore.open(dir, limits)
    expect(await reopened.list('acme')).toEqual([kept])
    expect(await reopened.read(kept)).toEqual(bytes(100, 1))
    expect(await readdir(join(tenantDir, 'blobs'))).toEqual([`${kept.sha256}.sbx`])
    expect((await readdir(tenantDir)).sort()).toEqual(['blobs', 'index.json'])
    expect(JSON.parse(await readFile(join(tenantDir, 'index.json'), 'utf8')).records.keys.sha256).toBe(kept.sha256)
  })

  it('quarantines a tenant whose index is damaged: coded refusals, the file kept, everyone else served', async () => {
    const seeded = await FileKeyStore.open(dir, limits)
    const { record: kept } = await seeded.put('acme', 'keys', facts, bytes(100, 1))
    const indexPath = join(dir, 'keysets', 'acme', 'index.json')
    const cases = ['{"version":1,"rec', JSON.stringify({ version: 1, records: { keys: { id: 'keys' } } })]
    for (const [round, damaged] of cases.entries()) {
      await writeFile(indexPath, damaged)
      const logged: Array<{ details: object; message: string }> = []
      const log = { error: (details: object, message: string) => logged.push({ details, message }), warn: () => {} }
      const store = await FileKeyStore.open(dir, limits, { log })
      expect(store.quarantinedTenants).toEqual(['acme'])
      for (const call of [
        store.list('acme'),
        store.get('acme', 'keys'),
        store.put('acme', 'new', facts, bytes(10, 2)),
        store.delete('acme', 'keys'),
        store.usage('acme'),
      ]) {
        expect(await codeOf(call)).toBe('TENANT_UNAVAILABLE')
      }
      const error = await store.list('acme').catch((e: HeError) => e)
      expect((error as HeError).message).toMatch(/index of tenant "acme" is damaged.*contact the operator/)
      // Once, with the path, at error level.
      expect(logged).toHaveLength(1)
      expect(logged[0]?.message).toContain(indexPath)
      expect(logged[0]?.details).toMatchObject({ tenant: 'acme', path: indexPath })
      // Never rewritten, never swept.
      expect(await readFile(indexPath, 'utf8')).toBe(damaged)
      expect(await readdir(join(dir, 'keysets', 'acme', 'blobs'))).toEqual([`${kept.sha256}.sbx`])
      const { created } = await store.put('beta', `keys-${round}`, facts, bytes(10, 3))
      expect(created).toBe(true)
      expect((await store.list('beta')).length).toBe(round + 1)
    }
  })

  it('answers STORE_UNAVAILABLE, not a crash, when the file system refuses a write', async () => {
    const store = await FileKeyStore.open(dir, limits)
    await store.put('acme', 'keys', facts, bytes(10, 1))
    // A file where the tenant's blob directory should be: mkdir and writes fail underneath.
    await rm(join(dir, 'keysets', 'acme', 'blobs'), { recursive: true })
    await writeFile(join(dir, 'keysets', 'acme', 'blobs'), 'not a directory')
    expect(await codeOf(store.put('acme', 'other', facts, bytes(10, 2)))).toBe('STORE_UNAVAILABLE')
    expect((await store.list('acme')).map((r) => r.id)).toEqual(['keys'])
  })

  it('serialises concurrent writes of one tenant (no lost update)', async () => {
    const store = await FileKeyStore.open(dir, { quotaBytes: 10_000, maxKeySets: 100 })
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.put('acme', `k${i}`, facts, bytes(10, i))))
    const reopened = await FileKeyStore.open(dir, { quotaBytes: 10_000, maxKeySets: 100 })
    expect((await reopened.list('acme')).length).toBe(20)
    expect(await reopened.usage('acme')).toBe(200)
  })
})

import { randomBytes } from 'node:crypto'
import { HeError } from '@sealbox/he-core'
import { waitFor } from '@sealbox/testkit'
import { afterEach, describe, expect, it } from 'vitest'
import type { KeySetFacts, KeyStore, KeyStoreLimits } from './KeyStore.ts'

/*
 * The behaviour every KeyStore must have, as one suite run against each store
 * (embedded files, PostgreSQL): the stores are interchangeable only if they pass
 * the same tests.
 */

/** A store under test (its `location` differs per implementation). */
export type ContractStore = Omit<KeyStore, 'location'> & { close?(): Promise<void> }

/** How the suite opens stores: `open` twice with the same harness must reach the same data. */
export interface KeyStoreHarness {
  open(limits: KeyStoreLimits): Promise<ContractStore>
}

const roomy: KeyStoreLimits = { quotaBytes: 1 << 30, maxKeySets: 64 }

/** Facts of a plausible Galois key set (the store keeps them, it does not interpret them). */
export function testFacts(overrides: Partial<KeySetFacts> = {}): KeySetFacts {
  return {
    keySetId: randomBytes(16).toString('hex'),
    fingerprint: 'ab'.repeat(16),
    kinds: ['galoisKeys'],
    galoisElements: [3, 9],
    polyModulusDegree: 4096,
    ...overrides,
  }
}

/** A tenant name no other test uses (stores are shared across the tests of a file). */
export function freshTenant(label = 't'): string {
  return `${label}-${randomBytes(6).toString('hex')}`
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    if (error instanceof HeError) return error.code
    throw error
  }
  return 'resolved'
}

/** Registers the contract suite for one store implementation. */
export function describeKeyStoreContract(name: string, harness: () => KeyStoreHarness): void {
  describe(`KeyStore contract: ${name}`, () => {
    const opened: ContractStore[] = []
    const open = async (limits: KeyStoreLimits = roomy) => {
      const store = await harness().open(limits)
      opened.push(store)
      return store
    }
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close?.()
    })

    it('stores, lists, reads and deletes a key set with its facts, size, digest and timestamps', async () => {
      const store = await open()
      const tenant = freshTenant()
      const bytes = randomBytes(4096)
      const facts = testFacts({ label: 'laptop', configId: 'cfg-1' })
      const { record, created } = await store.put(tenant, 'main', facts, bytes)
      expect(created).toBe(true)
      expect(record).toMatchObject({ ...facts, tenant, id: 'main', bytes: 4096 })
      expect(record.sha256).toMatch(/^[0-9a-f]{64}$/)
      expect(record.createdAt).toBe(record.updatedAt)
      expect(Number.isNaN(Date.parse(record.createdAt))).toBe(false)
      expect(await store.get(tenant, 'main')).toEqual(record)
      await store.put(tenant, 'alpha', testFacts(), randomBytes(10))
      expect((await store.list(tenant)).map((r) => r.id)).toEqual(['alpha', 'main'])
      expect(await store.usage(tenant)).toBe(4106)
      const read = await store.read({ tenant, id: 'main', sha256: record.sha256, bytes: record.bytes })
      expect(Buffer.from(read).equals(bytes)).toBe(true)
      expect(await store.delete(tenant, 'main')).toBe(true)
      expect(await store.delete(tenant, 'main')).toBe(false)
      expect(await store.get(tenant, 'main')).toBeUndefined()
      expect(await codeOf(store.read({ tenant, id: 'main', sha256: record.sha256, bytes: 4096 }))).toBe('NOT_FOUND')
      expect(await store.usage(tenant)).toBe(10)
    })

    it('replaces atomically: new bytes and digest, createdAt kept, the old version gone', async () => {
      const store = await open()
      const tenant = freshTenant()
      const { record: first } = await store.put(tenant, 'k', testFacts(), randomBytes(1000))
      // The replace must carry a later timestamp: wait for the clock to pass the first write's.
      await waitFor('the clock to pass the first write', () => Date.now() > Date.parse(first.updatedAt))
      const newBytes = randomBytes(3000)
      const { record: second, created } = await store.put(tenant, 'k', testFacts({ galoisElements: [3] }), newBytes)
      expect(created).toBe(false)
      expect(second.createdAt).toBe(first.createdAt)
      expect(Date.parse(second.updatedAt)).toBeGreaterThan(Date.parse(first.updatedAt))
      expect(second.sha256).not.toBe(first.sha256)
      expect(second.galoisElements).toEqual([3])
      expect(await store.usage(tenant)).toBe(3000)
      expect((await store.list(tenant)).length).toBe(1)
      expect(await codeOf(store.read({ tenant, id: 'k', sha256: first.sha256, bytes: 1000 }))).toBe('NOT_FOUND')
      const read = await store.read({ tenant, id: 'k', sha256: second.sha256, bytes: 3000 })
      expect(Buffer.from(read).equals(newBytes)).toBe(true)
    })

    it('keeps tenants apart: same ids, no cross-tenant get, list, read or delete', async () => {
      const store = await open()
      const alice = freshTenant('alice')
      const bob = freshTenant('bob')
      const { record: a } = await store.put(alice, 'shared-name', testFacts(), randomBytes(100))
      expect(await store.get(bob, 'shared-name')).toBeUndefined()
      expect(await store.list(bob)).toEqual([])
      expect(await store.delete(bob, 'shared-name')).toBe(false)
      expect(await codeOf(store.read({ tenant: bob, id: 'shared-name', sha256: a.sha256, bytes: 100 }))).toBe(
        'NOT_FOUND',
      )
      const { record: b } = await store.put(bob, 'shared-name', testFacts(), randomBytes(200))
      expect((await store.get(alice, 'shared-name'))?.sha256).toBe(a.sha256)
      expect((await store.get(bob, 'shared-name'))?.sha256).toBe(b.sha256)
      expect(await store.usage(alice)).toBe(100)
      expect(await store.usage(bob)).toBe(200)
    })

    it('enforces the quota (a replacement counts only its growth) and stores nothing on refusal', async () => {
      const store = await open({ quotaBytes: 1000, maxKeySets: 10 })
      const tenant = freshTenant()
      await store.put(tenant, 'a', testFacts(), randomBytes(600))
      expect(await codeOf(store.put(tenant, 'b', testFacts(), randomBytes(401)))).toBe('QUOTA_EXCEEDED')
      expect(await store.get(tenant, 'b')).toBeUndefined()
      await store.put(tenant, 'b', testFacts(), randomBytes(400))
      // Replacing a (600) with 600 bytes fits; with 601 it does not.
      await store.put(tenant, 'a', testFacts(), randomBytes(600))
      expect(await codeOf(store.put(tenant, 'a', testFacts(), randomBytes(601)))).toBe('QUOTA_EXCEEDED')
      expect(await store.usage(tenant)).toBe(1000)
      // Another tenant has its own quota.
      await store.put(freshTenant(), 'a', testFacts(), randomBytes(1000))
    })

    it('enforces the key-set limit; replacing at the limit is allowed', async () => {
      const store = await open({ quotaBytes: 1 << 20, maxKeySets: 2 })
      const tenant = freshTenant()
      await store.put(tenant, 'one', testFacts(), randomBytes(10))
      await store.put(tenant, 'two', testFacts(), randomBytes(10))
      expect(await codeOf(store.put(tenant, 'three', testFacts(), randomBytes(10)))).toBe('LIMIT_EXCEEDED')
      await store.put(tenant, 'two', testFacts(), randomBytes(20))
      expect((await store.list(tenant)).map((r) => r.id)).toEqual(['one', 'two'])
    })

    it('serializes concurrent writes of one tenant: the quota holds under a burst', async () => {
      const store = await open({ quotaBytes: 4000, maxKeySets: 100 })
      const tenant = freshTenant()
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => codeOf(store.put(tenant, `k${i}`, testFacts(), randomBytes(1000)))),
      )
      expect(results.filter((code) => code === 'resolved').length).toBe(4)
      expect(results.filter((code) => code === 'QUOTA_EXCEEDED').length).toBe(8)
      expect(await store.usage(tenant)).toBe(4000)
    })

    it('reports created for exactly one of 8 concurrent puts of a new id, replaced for the rest', async () => {
      const store = await open()
      const tenant = freshTenant()
      const results = await Promise.all(
        Array.from({ length: 8 }, () => store.put(tenant, 'raced', testFacts(), randomBytes(100))),
      )
      expect(results.filter((result) => result.created).length).toBe(1)
      const stored = await store.get(tenant, 'raced')
      // The last write wins, and it is one of the eight.
      expect(results.map((result) => result.record.sha256)).toContain(stored?.sha256)
      expect((await store.put(tenant, 'raced', testFacts(), randomBytes(100))).created).toBe(false)
      expect((await store.list(tenant)).length).toBe(1)
    })

    it('refuses unsafe tenant names and treats unsafe ids as absent', async () => {
      const store = await open()
      expect(await codeOf(store.put('../etc', 'x', testFacts(), randomBytes(1)))).toBe('INVALID_INPUT')
      expect(await codeOf(store.put(freshTenant(), 'a/b', testFacts(), randomBytes(1)))).toBe('INVALID_INPUT')
      expect(await codeOf(store.list('a b'))).toBe('INVALID_INPUT')
      expect(await store.get(freshTenant(), '..')).toBeUndefined()
      expect(await store.delete(freshTenant(), '')).toBe(false)
      const tenant = freshTenant()
      expect(await codeOf(store.read({ tenant, id: 'x', sha256: 'not-a-digest', bytes: 1 }))).toBe('INVALID_INPUT')
    })

    it('uses a digest the caller already computed', async () => {
      const store = await open()
      const tenant = freshTenant()
      const bytes = randomBytes(64)
      const { createHash } = await import('node:crypto')
      const sha256 = createHash('sha256').update(bytes).digest('hex')
      const { record } = await store.put(tenant, 'k', testFacts(), bytes, sha256)
      expect(record.sha256).toBe(sha256)
    })

    it('is durable: a store opened again on the same location sees every key set', async () => {
      const first = await open()
      const tenant = freshTenant()
      const bytes = randomBytes(2048)
      const { record } = await first.put(tenant, 'durable', testFacts(), bytes)
      await first.flush()
      await first.close?.()
      opened.splice(opened.indexOf(first), 1)
      const second = await open()
      expect(await second.get(tenant, 'durable')).toEqual(record)
      const read = await second.read({ tenant, id: 'durable', sha256: record.sha256, bytes: record.bytes })
      expect(Buffer.from(read).equals(bytes)).toBe(true)
    })
  })
}

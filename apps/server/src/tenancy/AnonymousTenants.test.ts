import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HeError } from '@sealbox/he-core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { FileKeyStore } from '../store/FileKeyStore.ts'
import { testFacts } from '../store/keyStoreTestKit.ts'
import { AnonymousTenants, EMPTY_TENANT_GRACE_MS } from './AnonymousTenants.ts'
import type { IssuedToken } from './TokenAuthority.ts'

function issuer(): () => IssuedToken {
  return () => {
    const id = randomBytes(8).toString('hex')
    return { tenant: `anon-${id}`, token: `token-${id}` }
  }
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

describe('AnonymousTenants', () => {
  let dir: string
  let store: FileKeyStore
  let now: number
  const clock = () => now

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sealbox-anon-'))
    store = await FileKeyStore.open(join(dir, 'keysets'), { quotaBytes: 1 << 20, maxKeySets: 8 })
    now = 1_000_000
  })
  afterEach(async () => {
    await store.flush()
    await rm(dir, { recursive: true, force: true })
  })

  it('admits up to the cap, also when asked at once, and refuses with OVERLOADED and a retry delay', async () => {
    const tenants = await AnonymousTenants.open({ maxTenants: 3, storageBytes: 1000, store, dataDir: dir, now: clock })
    const issue = issuer()
    const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => tenants.admit(issue)))
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(3)
    const refused = outcomes.find((outcome) => outcome.status === 'rejected')
    const error = (refused as PromiseRejectedResult).reason as HeError
    expect(error.code).toBe('OVERLOADED')
    expect(error.message).toMatch(/MAX_ANONYMOUS_TENANTS = 3/)
    expect(error.details?.retryAfterSeconds).toBe(EMPTY_TENANT_GRACE_MS / 1000)
    expect(tenants.size).toBe(3)
  })

  it('lets an empty tenant go after the grace period, never one that stores keys', async () => {
    const tenants = await AnonymousTenants.open({ maxTenants: 2, storageBytes: 1000, store, dataDir: dir, now: clock })
    const issue = issuer()
    const keeper = await tenants.admit(issue)
    await tenants.admit(issue)
    await store.put(keeper.tenant, 'k', testFacts(), new Uint8Array(100))
    await tenants.refresh(keeper.tenant)
    now += EMPTY_TENANT_GRACE_MS - 1
    expect(await codeOf(tenants.admit(issue))).toBe('OVERLOADED')
    now += 2
    await tenants.admit(issue)
    expect(tenants.size).toBe(2)
    // The keeper still holds its place (and its bytes); the newcomer is inside its grace period.
    now += EMPTY_TENANT_GRACE_MS / 2
    expect(await codeOf(tenants.admit(issue))).toBe('OVERLOADED')
    expect(tenants.storedBytes()).toBe(100)
  })

  it('caps stored bytes of all anonymous tenants together, counting uploads in flight', async () => {
    const tenants = await AnonymousTenants.open({ maxTenants: 5, storageBytes: 1000, store, dataDir: dir, now: clock })
    const issue = issuer()
    const a = await tenants.admit(issue)
    const b = await tenants.admit(issue)
    const releaseA = await tenants.reserve(a.tenant, 600, 0, 30_000)
    // A's upload has not landed yet, but it counts: B cannot take the same room.
    const refused = await tenants.reserve(b.tenant, 600, 0, 30_000).catch((error: HeError) => error)
    expect((refused as HeError).code).toBe('QUOTA_EXCEEDED')
    expect((refused as HeError).message).toMatch(/ANONYMOUS_STORAGE_BYTES/)
    await store.put(a.tenant, 'k', testFacts(), new Uint8Array(600))
    await tenants.refresh(a.tenant)
    releaseA()
    expect(tenants.storedBytes()).toBe(600)
    // Replacing A's key set with one of the same size fits: the old bytes are freed.
    const replace = await tenants.reserve(a.tenant, 600, 600, 30_000)
    replace()
    // A reservation whose request never reported back stops counting after its deadline.
    await tenants.reserve(b.tenant, 300, 0, 1000)
    expect(await codeOf(tenants.reserve(b.tenant, 300, 0, 1000))).toBe('QUOTA_EXCEEDED')
    now += 1001
    const late = await tenants.reserve(b.tenant, 300, 0, 1000)
    late()
  })

  it('keeps its list across reopening, and counts a tenant first seen on upload', async () => {
    const first = await AnonymousTenants.open({ maxTenants: 2, storageBytes: 1000, store, dataDir: dir, now: clock })
    const issue = issuer()
    await first.admit(issue)
    await first.flush()
    const second = await AnonymousTenants.open({ maxTenants: 2, storageBytes: 1000, store, dataDir: dir, now: clock })
    expect(second.size).toBe(1)
    // Issued before the registry existed (or lost): its upload registers it.
    const release = await second.reserve('anon-from-before', 10, 0, 30_000)
    release()
    expect(second.size).toBe(2)
    expect(await codeOf(second.admit(issue))).toBe('OVERLOADED')
    // The upload's registration is written in the background: settle it before the directory goes.
    await second.flush()
  })
})

import { exportSecretKey, paramsInputOf } from '@sealbox/he-core'
import { encodeBundle } from '@sealbox/he-core/envelope'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorOf, raw, type SearchSide, searchSide, startServer, type TestServer } from './harness.ts'

const database = { rows: 300, dim: 6, seed: 7 }

describe('key sets: tenancy, isolation, quotas', () => {
  let server: TestServer
  let side: SearchSide
  let keys: Uint8Array
  beforeAll(async () => {
    server = await startServer({ TENANT_QUOTA_BYTES: 1_000_000, MAX_KEYSETS: 3 })
    side = await searchSide(server.client, database)
    keys = side.keys as Uint8Array
  })
  afterAll(async () => {
    side[Symbol.dispose]()
    await server.close()
  })

  it('every call needs a bearer token; local mode hands out anonymous ones', async () => {
    const anonymous = await raw(`${server.url}/api/v1/keysets`)
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer')
    expect(anonymous.json.error?.code).toBe('UNAUTHORIZED')
    const forged = await raw(`${server.url}/api/v1/keysets`, { token: `sbx_local_${'0'.repeat(32)}_${'0'.repeat(32)}` })
    expect(forged.json.error?.code).toBe('UNAUTHORIZED')
    const session = await server.client.createSession()
    expect(session.session.mode).toBe('local')
    expect((await session.client.listKeySets()).keySets).toEqual([])
  })

  it('stores, lists, replaces and deletes; each record carries tenant, fingerprint, configId, size and times', async () => {
    const client = await server.tenant()
    const created = await client.putKeySet('k1', keys)
    expect(created.replaced).toBe(false)
    expect(created.keySet).toMatchObject({
      id: 'k1',
      keySetId: side.search.keySet.id,
      fingerprint: side.search.ctx.fingerprint,
      configId: side.config.configId,
      kinds: ['galoisKeys'],
      bytes: keys.length,
    })
    expect(Date.parse(created.keySet.createdAt)).toBeGreaterThan(0)
    const replaced = await client.putKeySet('k1', keys)
    expect(replaced.replaced).toBe(true)
    const list = await client.listKeySets()
    expect(list.keySets.map((k) => k.id)).toEqual(['k1'])
    expect(list.usage).toMatchObject({ bytes: keys.length, quotaBytes: 1_000_000, keySets: 1 })
    expect((await client.getKeySet('k1')).sha256).toMatch(/^[0-9a-f]{64}$/)
    await client.deleteKeySet('k1')
    expect((await errorOf(client.deleteKeySet('k1'))).code).toBe('NOT_FOUND')
    expect((await client.listKeySets()).keySets).toEqual([])
  })

  it('no tenant can list, use or delete another tenant’s keys', async () => {
    const alice = await server.tenant()
    const bob = await server.tenant()
    await alice.putKeySet('shared-name', keys)
    expect((await bob.listKeySets()).keySets).toEqual([])
    expect((await errorOf(bob.getKeySet('shared-name'))).code).toBe('NOT_FOUND')
    expect((await errorOf(bob.deleteKeySet('shared-name'))).code).toBe('NOT_FOUND')
    const q = side.query(5)
    expect((await errorOf(bob.search(q.bytes, { keySet: 'shared-name' }))).code).toBe('NOT_FOUND')
    // Bob's own key set of the same name is his, and Alice's stays hers.
    await bob.putKeySet('shared-name', keys)
    await bob.deleteKeySet('shared-name')
    const aliceResult = await alice.search(q.bytes, { keySet: 'shared-name' })
    expect(Array.from(side.search.decryptScores(aliceResult.responses).scores)).toEqual(Array.from(q.expected))
  })

  it('enforces the per-tenant byte quota and key-set count', async () => {
    const client = await server.tenant()
    const perSet = keys.length
    const fits = Math.floor(1_000_000 / perSet)
    expect(fits).toBeGreaterThanOrEqual(1)
    const names = Array.from({ length: Math.min(fits, 3) }, (_, i) => `q${i}`)
    for (const name of names) await client.putKeySet(name, keys)
    const over = await errorOf(client.putKeySet('one-too-many', keys))
    expect(over.code).toBe(fits >= 3 ? 'LIMIT_EXCEEDED' : 'QUOTA_EXCEEDED')
    expect(over.details?.status).toBe(fits >= 3 ? 422 : 413)
    // Replacing in place is always allowed within the quota.
    expect((await client.putKeySet(names[0] as string, keys)).replaced).toBe(true)
  })

  it('refuses a secret key wherever it is offered', async () => {
    const client = await server.tenant()
    const secret = exportSecretKey(side.search.keySet)
    expect((await errorOf(client.putKeySet('s', secret))).code).toBe('SECRET_KEY_REFUSED')
    const smuggled = encodeBundle([keys, secret])
    expect((await errorOf(client.putKeySet('s', smuggled))).code).toBe('SECRET_KEY_REFUSED')
    await client.putKeySet('good', keys)
    expect((await errorOf(client.search(secret, { keySet: 'good' }))).code).toBe('ENVELOPE_KIND_MISMATCH')
    const secretFirst = encodeBundle([secret, keys])
    expect((await errorOf(client.search(secretFirst, { keySet: 'good' }))).code).toBe('SECRET_KEY_REFUSED')
    const evaluate = await errorOf(
      client.evaluate({
        params: paramsInputOf(side.config.params),
        program: { version: 1, inputs: [{ name: 'x', kind: 'ciphertext' }], steps: [], outputs: ['x'] },
        inputs: { x: secret },
      }),
    )
    expect(evaluate.code).toBe('SECRET_KEY_REFUSED')
    expect((await client.listKeySets()).keySets.map((k) => k.id)).toEqual(['good'])
  })
})

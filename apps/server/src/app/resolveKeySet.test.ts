import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HeError } from '@sealbox/he-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FileKeyStore } from '../store/FileKeyStore.ts'
import { testFacts } from '../store/keyStoreTestKit.ts'
import { type KeySetNeeds, resolveKeySet } from './resolveKeySet.ts'

const FINGERPRINT = 'ab'.repeat(16)
const SECRET = 'cd'.repeat(16)

/** Needs that accept any record unless told otherwise. */
function needs(overrides: Partial<KeySetNeeds> = {}): KeySetNeeds {
  return {
    fingerprint: FINGERPRINT,
    envelopeKeySetIds: [SECRET],
    envelopes: 'the queries',
    missingFrom: () => undefined,
    withoutKeySet: () => undefined,
    ...overrides,
  }
}

/** Expects `promise` to be refused with an HeError of `code`. */
const refused = (promise: Promise<unknown>, code: string) => expect(promise).rejects.toMatchObject({ code })

describe('resolveKeySet', () => {
  let dir: string
  let store: FileKeyStore
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sealbox-resolve-'))
    store = await FileKeyStore.open(dir, { quotaBytes: 1 << 20, maxKeySets: 8 })
    await store.put('alice', 'k', testFacts({ keySetId: SECRET, fingerprint: FINGERPRINT }), new Uint8Array(64).fill(7))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it("names the stored version and the secret key the request's envelopes must carry", async () => {
    const resolved = await resolveKeySet(store, 'alice', 'k', needs())
    const record = await store.get('alice', 'k')
    expect(resolved).toEqual({
      keys: { tenant: 'alice', id: 'k', sha256: record?.sha256, bytes: 64 },
      keySetId: SECRET,
    })
  })

  it('answers nothing when no key set is named and none is needed; the needs say which error otherwise', async () => {
    expect(await resolveKeySet(store, 'alice', undefined, needs())).toBeUndefined()
    const needed = needs({ withoutKeySet: () => new HeError('MISSING_KEY', 'upload keys') })
    await refused(resolveKeySet(store, 'alice', undefined, needed), 'MISSING_KEY')
  })

  it("refuses, in order: another tenant's or an unknown id, other parameters, missing keys, another secret key", async () => {
    await refused(resolveKeySet(store, 'bob', 'k', needs()), 'NOT_FOUND')
    await refused(resolveKeySet(store, 'alice', 'nope', needs()), 'NOT_FOUND')
    await refused(resolveKeySet(store, 'alice', 'k', needs({ fingerprint: 'ee'.repeat(16) })), 'PARAMS_MISMATCH')
    // No fingerprint known on the loop (evaluate): not checked there.
    await expect(resolveKeySet(store, 'alice', 'k', needs({ fingerprint: undefined }))).resolves.toBeDefined()
    const lacking = needs({ missingFrom: (record) => new HeError('MISSING_KEY', `key set "${record.id}" lacks x`) })
    await refused(resolveKeySet(store, 'alice', 'k', lacking), 'MISSING_KEY')
    const stranger = resolveKeySet(store, 'alice', 'k', needs({ envelopeKeySetIds: [SECRET, 'ff'.repeat(16)] }))
    await expect(stranger).rejects.toMatchObject({
      code: 'KEY_SET_MISMATCH',
      message: 'the queries were encrypted under another secret key than key set "k"',
    })
  })
})

import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HeError } from '@sealbox/he-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FileKeyStore } from '../store/FileKeyStore.ts'
import { testFacts } from '../store/keyStoreTestKit.ts'
import { resolveKeySet } from './resolveKeySet.ts'
import { searchKeyNeeds } from './searchKeyNeeds.ts'

const FINGERPRINT = 'ab'.repeat(16)
const SECRET = 'cd'.repeat(16)

/** The HeError `promise` is refused with. */
async function refusal(promise: Promise<unknown>): Promise<HeError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(HeError)
  return error as HeError
}

describe('searchKeyNeeds', () => {
  let dir: string
  let store: FileKeyStore
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sealbox-search-needs-'))
    store = await FileKeyStore.open(dir, { quotaBytes: 1 << 20, maxKeySets: 8 })
    const facts = testFacts({ keySetId: SECRET, fingerprint: FINGERPRINT, galoisElements: [3, 9] })
    await store.put('alice', 'k', facts, new Uint8Array(64).fill(7))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('accepts a key set holding every element the search rotates by, and none when it rotates by none', async () => {
    const needs = searchKeyNeeds({ fingerprint: FINGERPRINT, galoisElements: [9] }, [SECRET])
    expect((await resolveKeySet(store, 'alice', 'k', needs))?.keySetId).toBe(SECRET)
    const none = searchKeyNeeds({ fingerprint: FINGERPRINT, galoisElements: [] }, [SECRET])
    expect(await resolveKeySet(store, 'alice', undefined, none)).toBeUndefined()
  })

  it('refuses with MISSING_KEY (422) naming every element the key set lacks, or the key set not passed', async () => {
    const needs = searchKeyNeeds({ fingerprint: FINGERPRINT, galoisElements: [3, 5, 7] }, [SECRET])
    const lacking = await refusal(resolveKeySet(store, 'alice', 'k', needs))
    expect(lacking.code).toBe('MISSING_KEY')
    expect(lacking.httpStatus).toBe(422)
    expect(lacking.details).toMatchObject({ missing: [5, 7] })
    expect(lacking.message).toBe('key set "k" lacks the Galois elements 5, 7 this search needs')
    const without = await refusal(resolveKeySet(store, 'alice', undefined, needs))
    expect(without.code).toBe('MISSING_KEY')
    expect(without.message).toMatch(/upload a key set and pass \?keySet=<id>/)
  })

  it('refuses keys under other parameters (PARAMS_MISMATCH) and queries of another secret key (KEY_SET_MISMATCH)', async () => {
    const other = searchKeyNeeds({ fingerprint: 'ee'.repeat(16), galoisElements: [3] }, [SECRET])
    expect((await refusal(resolveKeySet(store, 'alice', 'k', other))).code).toBe('PARAMS_MISMATCH')
    const stranger = searchKeyNeeds({ fingerprint: FINGERPRINT, galoisElements: [3] }, ['ef'.repeat(16)])
    expect((await refusal(resolveKeySet(store, 'alice', 'k', stranger))).code).toBe('KEY_SET_MISMATCH')
  })
})

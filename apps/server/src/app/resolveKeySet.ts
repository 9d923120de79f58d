import { HeError } from '@sealbox/he-core'
import type { KeySetRef } from '../executor/keySetRef.ts'
import type { KeyBlobRef, KeySetRecord, KeyStore } from '../store/KeyStore.ts'

/** The job fields that name a key set: where its bytes are, and the secret key every envelope must carry. */
export interface ResolvedKeySet {
  /** The stored version (a `KeySetRef` — tenant and sha256 — plus the id and size the worker reads). */
  keys: KeyBlobRef & KeySetRef
  /** The secret key's id: every ciphertext of the request must belong to it. */
  keySetId: string
}

/** What a piece of work needs of a key set, as the route knows it on the event loop. */
export interface KeySetNeeds {
  /** The params fingerprint the keys must be made under, when the route knows it (search). */
  fingerprint?: string
  /** Key-set ids the request's envelopes carry (from their headers): each must be the key set's. */
  envelopeKeySetIds: Iterable<string>
  /** How messages name those envelopes: "the queries", "the inputs". */
  envelopes: string
  /** The keys the work needs that `record` lacks, as one MISSING_KEY error; undefined when none is missing. */
  missingFrom(record: KeySetRecord): HeError | undefined
  /** The MISSING_KEY error when no key set was named; undefined when the work needs no keys. */
  withoutKeySet(): HeError | undefined
}

/**
 * The one place a search or an evaluate resolves its `?keySet=`: the tenant's record
 * (NOT_FOUND), its parameters (PARAMS_MISMATCH), the keys the work needs (MISSING_KEY,
 * every missing key at once) and the secret key of the request's envelopes
 * (KEY_SET_MISMATCH) — all on the loop, before any work is queued. Undefined when no
 * key set was named and none is needed.
 */
export async function resolveKeySet(
  store: KeyStore,
  tenant: string,
  id: string | undefined,
  needs: KeySetNeeds,
): Promise<ResolvedKeySet | undefined> {
  if (id === undefined) {
    const missing = needs.withoutKeySet()
    if (missing) throw missing
    return undefined
  }
  const record = await store.get(tenant, id)
  if (!record) throw new HeError('NOT_FOUND', `no key set "${id}"`)
  if (needs.fingerprint !== undefined && record.fingerprint !== needs.fingerprint) {
    throw new HeError('PARAMS_MISMATCH', `key set "${record.id}" was made under other encryption parameters`, {
      details: { expected: needs.fingerprint, found: record.fingerprint },
    })
  }
  const missing = needs.missingFrom(record)
  if (missing) throw missing
  for (const keySetId of needs.envelopeKeySetIds) {
    if (keySetId !== record.keySetId) {
      throw new HeError(
        'KEY_SET_MISMATCH',
        `${needs.envelopes} were encrypted under another secret key than key set "${record.id}"`,
        { details: { expected: record.keySetId, found: keySetId } },
      )
    }
  }
  return {
    keys: { tenant, id: record.id, sha256: record.sha256, bytes: record.bytes },
    keySetId: record.keySetId,
  }
}

import { createHash } from 'node:crypto'
import {
  type DecodedEvaluationKeys,
  decodeEvaluationKeys,
  EvaluationKeys,
  type HeContext,
  HeError,
  toHeError,
} from '@sealbox/he-core'
import type { CacheLease } from '../executor/KeyCache.ts'
import { type KeyUse, keyUsePartOf } from '../executor/KeyUse.ts'
import { keySetCacheKey, keySetOf } from '../executor/keySetRef.ts'
import type { KeyBlobRef } from '../store/KeyStore.ts'
import type { JobContext, PhaseClock } from './PhaseClock.ts'

/**
 * The deserialized keys of a stored key set under `ctx`, from the first tier that has
 * them: this worker's cache; the full-form bytes the scheduler sent from the node's
 * bytes cache (`keyBytes`); or the durable store, whose seeded upload is then re-saved
 * in full form for the node's bytes cache (`clock.fullFormKeys`). Booked as keyload
 * (store fetch) and keydeserialize. The cache key is the key set (tenant and content
 * hash: a replaced key set is a new entry, two tenants never share one) and the fingerprint.
 * With `only`, just those keys are loaded and cached, as their own entry (`keyUsePartOf`).
 */
export async function acquireKeys(
  job: JobContext,
  ctx: HeContext,
  ref: KeyBlobRef,
  clock: PhaseClock,
  keyBytes?: Uint8Array,
  only?: KeyUse,
): Promise<CacheLease<EvaluationKeys>> {
  // A job that needs only some keys loads (and caches) just those: a search with a key set
  // of hundreds of elements loads its two, a program its rotations', never the whole set.
  const keySet = only ? keyUsePartOf(keySetOf(ref), only) : keySetOf(ref)
  const loadOptions = only ? { onlyGaloisElements: only.galoisElements, relinKeys: only.relinKeys } : {}
  const loaded = { ...keySet, fingerprint: ctx.fingerprint }
  const lease = await job.keys.acquire(keySetCacheKey(loaded), async () => {
    if (keyBytes) {
      clock.keyTier = 'bytes'
      const keys = clock.time('keydeserialize', () => EvaluationKeys.load(ctx, keyBytes, loadOptions))
      return { value: keys, bytes: keys.heapBytes }
    }
    clock.keyTier = 'store'
    const bytes = await clock.timeAsync('keyload', () => job.reader.read(ref))
    // The store's bytes were checked on upload: if they no longer match their digest, the
    // damage is the server's, not the client's (never "re-export the object").
    const digest = createHash('sha256').update(bytes).digest('hex')
    if (digest !== ref.sha256) {
      throw damagedKeySet(ref, `its bytes hash to ${digest}, the record says ${ref.sha256}`)
    }
    return clock.time('keydeserialize', () => {
      let decoded: DecodedEvaluationKeys
      try {
        decoded = decodeEvaluationKeys(bytes, { fingerprint: ctx.fingerprint })
      } catch (error) {
        throw damagedKeySet(ref, toHeError(error).message, error)
      }
      const keys = EvaluationKeys.load(ctx, decoded, loadOptions)
      try {
        // Once per node and key set (~2 ms at n=4096): later misses load 20–30× faster.
        clock.fullFormKeys = { keySet, bytes: keys.saveFullForm(ctx.seal, decoded) }
      } catch (error) {
        keys.dispose()
        throw error
      }
      return { value: keys, bytes: keys.heapBytes }
    })
  })
  if (lease.hit) clock.keyTier = 'worker'
  clock.keyCache = lease.hit ? 'hit' : 'miss'
  return lease
}

/**
 * A stored key set that cannot be read back: INTERNAL (the client gets a request id; the
 * details, with the tenant and key set, go to the server log).
 */
function damagedKeySet(ref: KeyBlobRef, why: string, cause?: unknown): HeError {
  return new HeError('INTERNAL', `stored key set "${ref.id}" of tenant "${ref.tenant}" is damaged: ${why}`, {
    ...(cause === undefined ? {} : { cause }),
    details: { tenant: ref.tenant, keySet: ref.id },
  })
}

import type { HeContext } from '@sealbox/he-core'
import type { CacheLease } from '../executor/KeyCache.ts'
import type { KeyBlobRef } from '../store/KeyStore.ts'
import { decodeKeySet, EvaluationKeys } from './EvaluationKeys.ts'
import type { JobContext, PhaseClock } from './PhaseClock.ts'

/**
 * The deserialized keys of a stored key set under `ctx`, from this worker's cache or
 * read from the store and loaded into SEAL (booked as keyload and deserialize).
 * The cache key holds the tenant and the content hash: a replaced key set is a new
 * entry, and two tenants never share one.
 */
export async function acquireKeys(
  job: JobContext,
  ctx: HeContext,
  ref: KeyBlobRef,
  clock: PhaseClock,
): Promise<CacheLease<EvaluationKeys>> {
  const lease = await job.keys.acquire(`${ref.tenant}/${ref.sha256}/${ctx.fingerprint}`, async () => {
    const bytes = await clock.timeAsync('keyload', () => job.reader.read(ref))
    const keys = clock.time('deserialize', () =>
      EvaluationKeys.load(ctx, decodeKeySet(bytes, { fingerprint: ctx.fingerprint })),
    )
    return { value: keys, bytes: keys.heapBytes }
  })
  clock.keyCache = lease.hit ? 'hit' : 'miss'
  return lease
}

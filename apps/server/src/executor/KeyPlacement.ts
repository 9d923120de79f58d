import type { WorkerJob, WorkerReply } from './jobMessages.ts'
import type { KeyBytesCache } from './KeyBytesCache.ts'
import { keyUsePartOf } from './KeyUse.ts'
import { type KeySetRef, keySetCacheKey, keySetOf, searchKeySetOf } from './keySetRef.ts'

/** A job's stored evaluation keys, as placement compares them. */
export interface JobKeys {
  /** The key set (what a worker may already hold). */
  keySet: KeySetRef
  /** Its cache key, the identity the worker choice compares. */
  keys: string
}

/**
 * What the scheduler knows of where evaluation keys live: which key sets each worker
 * holds deserialized (mirrored from its replies), and the node's cache of full-form
 * key bytes, sent with a job to a worker that lacks its keys.
 */
export class KeyPlacement {
  readonly #bytesCache: KeyBytesCache | undefined
  /** Which key sets (their cache keys) each worker holds deserialized. */
  readonly holds = new Map<string, Set<string>>()

  constructor(bytesCache: KeyBytesCache | undefined) {
    this.#bytesCache = bytesCache
  }

  /** The stored keys a job uses, if any. */
  static keysOf(job: WorkerJob): JobKeys | undefined {
    if ((job.type !== 'search' && job.type !== 'evaluate') || !job.keys) return undefined
    // A search loads only the Galois elements its queries use, in its form; an evaluate only
    // the keys its program uses: that part is what workers hold.
    const keySet =
      job.type === 'search'
        ? job.galoisElements
          ? searchKeySetOf(job.keys, job.galoisElements, job.keyForm ?? 'seal')
          : keySetOf(job.keys)
        : job.keyUse
          ? keyUsePartOf(keySetOf(job.keys), job.keyUse)
          : keySetOf(job.keys)
    return { keySet, keys: keySetCacheKey(keySet) }
  }

  /** Mirrors a worker's key cache and fills the bytes cache from a reply. */
  learn(reply: WorkerReply): void {
    if (reply.cachedKeys) {
      // Placement is per key set version, whatever fingerprint it was loaded under.
      const held = reply.cachedKeys.map((loaded) => keySetCacheKey(keySetOf(loaded)))
      this.holds.set(reply.worker.workerId, new Set(held))
    }
    if (reply.fullFormKeys) this.#bytesCache?.set(reply.fullFormKeys.keySet, reply.fullFormKeys.bytes)
  }

  /** The job to send to `worker`: with the key bytes of its use (`KeySetRef.use`) when it does not hold the keys. */
  withKeyBytes(job: WorkerJob, keys: JobKeys | undefined, worker: string | undefined): WorkerJob {
    if (!worker || !keys || !this.#bytesCache) return job
    // The mirror of a worker's cache is as old as its last reply: a job still running
    // there may evict the keys before this one starts, and the worker would then read
    // the store (tens of ms). A search's kernel form is small (0.38 MiB at the defaults,
    // a copy of well under a millisecond), so it always goes along; SEAL's full form for
    // evaluate programs (MiBs) only when the worker is not known to hold the keys.
    if (keys.keySet.use !== 'search' && this.holds.get(worker)?.has(keys.keys)) return job
    if (job.type !== 'search' && job.type !== 'evaluate') return job
    const keyBytes = this.#bytesCache.get(keys.keySet)
    return keyBytes ? { ...job, keyBytes } : job
  }
}

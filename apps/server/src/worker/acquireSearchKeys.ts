import { EvaluationKeys, HeError, toHeError } from '@sealbox/he-core'
import { KernelGaloisKeys } from '@sealbox/he-core/search'
import type { CacheLease } from '../executor/KeyCache.ts'
import { type KeySetRef, keySetCacheKey, searchKeySetOf } from '../executor/keySetRef.ts'
import type { KeyBlobRef } from '../store/KeyStore.ts'
import { kernelFormName, openKernelFormBlob } from '../store/kernelFormBlob.ts'
import type { JobContext, PhaseClock, WorkerKeys } from './PhaseClock.ts'
import { readStoredKeySet } from './readStoredKeySet.ts'
import type { SearchService } from './SearchService.ts'

/**
 * A search's Galois keys for a stored key set when the search runs in the key-switching
 * kernel: `KernelGaloisKeys` — the kernel's u32 words of the Galois elements the search
 * uses, and no SEAL object — from the first tier that has them: this worker's cache; the
 * kernel form the scheduler sent from the node's bytes cache (`keyBytes`: a view and one
 * pass that checks each residue, no SEAL load, no seed expansion, no 64→32-bit
 * conversion); or the durable store: the kernel form it keeps beside the upload
 * (checked and copied, no SEAL load), or — for a key set stored without one, or whose
 * kernel form fails its checks — the upload, which SEAL then loads (only the search's
 * elements, expanding their seeds), converted once and handed back for the node's bytes
 * cache and the store (`clock.fullFormKeys`). Cached as `searchKeySetOf(…, 'kernel')`, apart from
 * SEAL's part of the set (a search in SEAL) and its whole set (evaluate programs).
 */
export async function acquireSearchKeys(
  job: JobContext,
  search: SearchService,
  ref: KeyBlobRef,
  clock: PhaseClock,
  keyBytes?: Uint8Array,
): Promise<CacheLease<WorkerKeys>> {
  if (search.index.kernel !== 'keySwitch') {
    throw new HeError('INTERNAL', `kernel-form keys asked of a search that runs in ${search.index.kernel}`)
  }
  const ctx = search.ctx
  const keySet = kernelKeySetOf(search, ref)
  const lease = await job.keys.acquire(keySetCacheKey({ ...keySet, fingerprint: ctx.fingerprint }), async () => {
    if (keyBytes) {
      clock.keyTier = 'bytes'
      return clock.time('keydeserialize', () => fromNodeBytes(search, keyBytes))
    }
    clock.keyTier = 'store'
    const stored = await readStoredKernelForm(job, search, ref, keySet, clock)
    if (stored) return stored
    clock.storeForm = 'seal'
    const decoded = await readStoredKeySet(job, ctx, ref, clock)
    return clock.time('keydeserialize', () => {
      // Only the search's elements go through SEAL (MISSING_KEY naming any the set lacks).
      using keys = EvaluationKeys.load(ctx, decoded, {
        countKernelWords: false,
        onlyGaloisElements: search.galoisElements,
      })
      const words = kernelFormOf(search, keys)
      // Handed back for the node's bytes cache and, as the store's copy, for the next store-tier miss.
      clock.fullFormKeys = {
        keySet,
        bytes: words.toBytes(),
        storeForm: kernelFormName(ctx.fingerprint, search.galoisElements),
      }
      return { value: words, bytes: words.bytes }
    })
  })
  if (lease.hit) clock.keyTier = 'worker'
  clock.keyCache = lease.hit ? 'hit' : 'miss'
  return lease
}

/**
 * The kernel form the store keeps beside the upload, checked (its digest, then the
 * form's own layout and residue checks, then the search's elements) and copied once
 * into the cache's own buffer: no SEAL load. Undefined when the store keeps none (a key
 * set stored before kernel forms were kept) or the one it keeps fails a check
 * (`clock.kernelFormDamaged`): the caller then loads SEAL's bytes, never wrong keys.
 */
async function readStoredKernelForm(
  job: JobContext,
  search: SearchService,
  ref: KeyBlobRef,
  keySet: KeySetRef,
  clock: PhaseClock,
): Promise<{ value: WorkerKeys; bytes: number } | undefined> {
  if (!job.setup.storeKernelForms) return undefined
  const form = kernelFormName(search.ctx.fingerprint, search.galoisElements)
  const blob = await clock.timeAsync('keyload', () => job.reader.readKernelForm(ref, form))
  if (!blob) return undefined
  try {
    const loaded = clock.time('keydeserialize', () => fromKernelFormBytes(search, openKernelFormBlob(blob)))
    clock.storeForm = 'kernel'
    clock.fullFormKeys = { keySet, bytes: loaded.value.toBytes() }
    return loaded
  } catch {
    clock.kernelFormDamaged = true
    return undefined
  }
}

/** The identity of a key set's kernel form for `search`, in every cache. */
export function kernelKeySetOf(search: SearchService, ref: { tenant: string; sha256: string }) {
  return searchKeySetOf(ref, search.galoisElements, 'kernel')
}

/**
 * The kernel form of SEAL keys for `search` (only the elements it rotates by); MISSING_KEY
 * naming the rotation steps when the key set lacks one.
 */
export function kernelFormOf(search: SearchService, keys: EvaluationKeys): KernelGaloisKeys {
  keys.requireGaloisElements(search.galoisElements, `search config ${search.configId}`)
  return KernelGaloisKeys.fromSeal(search.ctx, keys, search.galoisElements)
}

/** Kernel-form bytes for `search`, checked, with the search's elements exactly. */
function fromKernelFormBytes(search: SearchService, bytes: Uint8Array): { value: KernelGaloisKeys; bytes: number } {
  const words = KernelGaloisKeys.fromBytes(search.ctx, bytes)
  const wanted = [...search.galoisElements].sort((a, b) => a - b)
  if (words.galoisElements.join(',') !== wanted.join(',')) {
    throw new HeError(
      'INTERNAL',
      `kernel-form keys for elements ${words.galoisElements.join(', ')}, the search uses ${wanted.join(', ')}`,
    )
  }
  return { value: words, bytes: words.bytes }
}

/** The kernel form from the node's bytes cache: a view of the copy the message brought, checked. */
function fromNodeBytes(search: SearchService, bytes: Uint8Array): { value: WorkerKeys; bytes: number } {
  try {
    return fromKernelFormBytes(search, bytes)
  } catch (error) {
    // The node made these bytes: a fault in them is the server's, not the client's.
    const cause = toHeError(error)
    throw new HeError('INTERNAL', `the node's cached kernel-form keys did not load: ${cause.message}`, { cause })
  }
}

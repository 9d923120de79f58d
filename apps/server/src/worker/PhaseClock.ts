import type { EvaluationKeys, Seal } from '@sealbox/he-core'
import type { TimingPhase } from '@sealbox/he-core/client'
import type { KernelGaloisKeys } from '@sealbox/he-core/search'
import type { StoreKeyForm } from '../executor/jobMessages.ts'
import type { KeyCache } from '../executor/KeyCache.ts'
import type { KeySetRef } from '../executor/keySetRef.ts'
import type { WorkerSetup } from '../executor/WorkerSetup.ts'
import type { KeyBlobReader } from '../store/KeyStore.ts'
import type { SearchService } from './SearchService.ts'

/** Phases measured inside a worker (queue and HTTP phases are measured by the server). */
export type WorkerPhase = Extract<TimingPhase, 'keyload' | 'keydeserialize' | 'deserialize' | 'compute' | 'serialize'>

/** Times the phases of one job and notes whether its keys came from the cache. */
export interface PhaseClock {
  readonly timings: Partial<Record<WorkerPhase, number>>
  keyCache: 'hit' | 'miss' | 'none'
  /** Which tier served the keys. */
  keyTier: 'worker' | 'bytes' | 'store' | undefined
  /** Keys read from the store, re-saved in full form for the node's bytes cache. */
  fullFormKeys: { keySet: KeySetRef; bytes: Uint8Array; storeForm?: string } | undefined
  /** On a store-tier miss: which form the store served (`kernel`: its kernel form, no SEAL load). */
  storeForm: StoreKeyForm | undefined
  /** On a store-tier miss: the store's kernel form failed its checks, so SEAL's bytes served. */
  kernelFormDamaged: boolean
  /** Books `ms` to `phase` (durations measured elsewhere, e.g. by he-core). */
  add(phase: WorkerPhase, ms: number): void
  /** Runs `fn` and books its duration to `phase`. */
  time<T>(phase: WorkerPhase, fn: () => T): T
  timeAsync<T>(phase: WorkerPhase, fn: () => Promise<T>): Promise<T>
}

export function startPhaseClock(): PhaseClock {
  const timings: Partial<Record<WorkerPhase, number>> = {}
  const book = (phase: WorkerPhase, start: number) => {
    timings[phase] = (timings[phase] ?? 0) + (performance.now() - start)
  }
  return {
    timings,
    keyCache: 'none',
    keyTier: undefined,
    fullFormKeys: undefined,
    storeForm: undefined,
    kernelFormDamaged: false,
    add(phase, ms) {
      timings[phase] = (timings[phase] ?? 0) + ms
    },
    time(phase, fn) {
      const start = performance.now()
      try {
        return fn()
      } finally {
        book(phase, start)
      }
    },
    async timeAsync(phase, fn) {
      const start = performance.now()
      try {
        return await fn()
      } finally {
        book(phase, start)
      }
    },
  }
}

/** What a worker's key cache holds: SEAL's keys, or a search's kernel-form Galois keys. */
export type WorkerKeys = EvaluationKeys | KernelGaloisKeys

/** What job handlers use of their runner. */
export interface JobContext {
  readonly setup: WorkerSetup
  readonly seal: Seal
  readonly search: SearchService
  /** Evaluate programs' SEAL keys and searches' keys (`acquireSearchKeys`): one budget. */
  readonly keys: KeyCache<WorkerKeys>
  readonly reader: KeyBlobReader
  readonly isolated: boolean
}

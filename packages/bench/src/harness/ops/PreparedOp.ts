import { type SealHandle, SealScope } from '@sealbox/he-core'
import type { BenchEnv } from '../BenchEnv.ts'
import type { Random } from '../Random.ts'

/**
 * One benchmark row made ready to time. Only `call` runs between the clock readings;
 * `setup` and `teardown` run outside them (fresh copies for in-place ops, deleting the
 * keys a KeyGen call returned), like sealbench's PauseTiming/ResumeTiming.
 */
export interface PreparedOp {
  /** Most calls one batch may hold (each call's result is kept until `teardown`). */
  readonly maxBatch: number
  /** Outside the timer: inputs for calls 0..calls-1. */
  setup(calls: number): void
  /** The timed work of call `i` of the batch. */
  call(i: number): void
  /** Outside the timer: free what the batch produced. */
  teardown(): void
  /** Deletes everything the op prepared. */
  dispose(): void
}

/** What an op may use while preparing. */
export interface OpInputs {
  env: BenchEnv
  rng: Random
}

/** Builds a prepared op for one environment. */
export type OpFactory = (inputs: OpInputs) => PreparedOp

/** Bytes a batch of results may hold (n=32768 relinearization keys are ~126 MB each). */
const BATCH_BYTES = 256 * 2 ** 20

/** How many results of `bytesEach` fit in one batch (at least 1). */
export function batchLimit(bytesEach: number): number {
  return Math.max(1, Math.floor(BATCH_BYTES / Math.max(1, bytesEach)))
}

/** Bytes of a ciphertext of `size` polynomials over `primes` primes. */
export function cipherBytes(env: BenchEnv, size: number, primes: number): number {
  return size * primes * env.n * 8
}

/**
 * An op that writes into destinations prepared once (encrypt into ct, add into dest):
 * nothing to do between calls. `arena` owns the inputs.
 */
export function fixedOp(arena: SealScope, call: (i: number) => void): PreparedOp {
  return {
    maxBatch: Number.POSITIVE_INFINITY,
    setup() {},
    call,
    teardown() {},
    dispose: () => arena.dispose(),
  }
}

/**
 * An in-place op (relinearize, mod switch, rescale): every call gets its own copy of
 * `template`, made before the timed batch.
 */
export function inPlaceOp<T extends SealHandle & { copy(): T }>(
  arena: SealScope,
  template: T,
  bytesEach: number,
  call: (target: T) => void,
): PreparedOp {
  const copies: T[] = []
  return {
    maxBatch: batchLimit(bytesEach),
    setup(calls) {
      for (let i = 0; i < calls; i++) copies.push(arena.track(template.copy()))
    },
    call: (i) => call(copies[i]!),
    teardown() {
      for (const copy of copies) arena.free(copy)
      copies.length = 0
    },
    dispose: () => arena.dispose(),
  }
}

/** An op that returns a new SEAL object per call (KeyGen): results are deleted after the batch. */
export function producingOp(arena: SealScope, bytesEach: number, call: (i: number) => SealHandle): PreparedOp {
  const results: SealHandle[] = []
  return {
    maxBatch: batchLimit(bytesEach),
    setup() {},
    call(i) {
      results.push(call(i))
    },
    teardown() {
      for (const result of results) {
        if (!result.isDeleted()) result.delete()
      }
      results.length = 0
    },
    dispose() {
      this.teardown()
      arena.dispose()
    },
  }
}

/** A new arena for an op's inputs. */
export function opArena(): SealScope {
  return new SealScope()
}

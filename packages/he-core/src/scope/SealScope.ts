import { HeError } from '../errors/HeError.ts'
import { sealOutOfMemory } from '../seal/sealOutOfMemory.ts'

/** Anything node-seal hands out: an embind handle that must be deleted exactly once. */
export interface SealHandle {
  delete(): void
  isDeleted(): boolean
}

let live = 0

/**
 * Number of SEAL handles created through a scope (or `adopt`) and not yet deleted,
 * on this thread. Tests use it with `wasmHeapBytes()` to prove nothing leaks.
 */
export function liveSealHandles(): number {
  return live
}

function deleteHandle(handle: SealHandle): void {
  // After an out-of-memory any call into node-seal deadlocks; the instance is being replaced.
  if (sealOutOfMemory()) return
  if (!handle.isDeleted()) {
    handle.delete()
    live--
  }
}

/**
 * An arena for SEAL objects. Everything created through `track` is deleted when the
 * scope is disposed — on success and on error alike (`using scope = new SealScope()`).
 * `release` hands an object to another owner (a cache, the caller).
 */
export class SealScope implements Disposable {
  readonly #handles = new Set<SealHandle>()
  #disposed = false

  /** Takes ownership of `handle` and returns it. */
  track<T extends SealHandle>(handle: T): T {
    if (this.#disposed) {
      handle.delete()
      throw new HeError('INTERNAL', 'SealScope is already disposed: track objects in a scope that is still open')
    }
    this.#handles.add(handle)
    live++
    return handle
  }

  /** Gives up ownership: the caller (or another owner) must now delete `handle`. */
  release<T extends SealHandle>(handle: T): T {
    if (this.#handles.delete(handle)) live--
    return handle
  }

  /** Deletes one handle now instead of at the end of the scope. */
  free(handle: SealHandle): void {
    if (this.#handles.delete(handle)) deleteHandle(handle)
  }

  get size(): number {
    return this.#handles.size
  }

  dispose(): void {
    if (this.#disposed) return
    this.#disposed = true
    for (const handle of this.#handles) deleteHandle(handle)
    this.#handles.clear()
  }

  [Symbol.dispose](): void {
    this.dispose()
  }
}

/**
 * Runs `fn` with a fresh scope and disposes it afterwards, whatever happens.
 * Return plain data, or `release` what must outlive the scope.
 */
export function withScope<T>(fn: (scope: SealScope) => T): T {
  const scope = new SealScope()
  try {
    return fn(scope)
  } finally {
    scope.dispose()
  }
}

/** Counts a long-lived handle (a cached context, a key) under its one owner. */
export function adopt<T extends SealHandle>(handle: T): T {
  live++
  return handle
}

/** Deletes a handle counted by `adopt`. */
export function disown(handle: SealHandle): void {
  deleteHandle(handle)
}

/** Anything node-seal hands out: an embind handle that must be deleted exactly once. */
export interface SealHandle {
  delete(): void
  isDeleted(): boolean
}

let live = 0

/** Handles created through any arena and not deleted yet (the harness reports it; tests assert 0). */
export function liveBenchHandles(): number {
  return live
}

/**
 * The owner of the SEAL objects of one benchmark phase (an environment, a prepared op).
 * node-seal objects live in the WASM heap and are never garbage-collected, and n=32768
 * keys are ~126 MB each, so every handle is deleted as soon as its phase ends.
 */
export class HandleArena {
  readonly #handles: SealHandle[] = []

  /** Takes ownership of `handle` and returns it. */
  track<T extends SealHandle>(handle: T): T {
    this.#handles.push(handle)
    live++
    return handle
  }

  /** Deletes one handle now (e.g. a batch's results) instead of at `dispose`. */
  free(handle: SealHandle): void {
    const index = this.#handles.lastIndexOf(handle)
    if (index >= 0) this.#handles.splice(index, 1)
    if (!handle.isDeleted()) handle.delete()
    if (index >= 0) live--
  }

  /** Deletes everything still owned, newest first. */
  dispose(): void {
    while (this.#handles.length > 0) {
      const handle = this.#handles.pop()!
      if (!handle.isDeleted()) handle.delete()
      live--
    }
  }
}

/*
 * After std::bad_alloc at the WASM heap cap, node-seal deadlocks on the next call into
 * the instance — a `.delete()` included. Once an out-of-memory is seen, every owner
 * leaves its objects alone: the host replaces the instance (a new worker, or
 * `retireSeal()` and a fresh load), and the old heap goes with it.
 */

let outOfMemory = false

/** Records that this thread's node-seal instance ran out of memory (`toHeError` calls it). */
export function markSealOutOfMemory(): void {
  outOfMemory = true
}

/** True once this thread's node-seal instance ran out of memory: no call into it may be made. */
export function sealOutOfMemory(): boolean {
  return outOfMemory
}

/** A fresh instance is healthy again (`loadSeal` after `retireSeal`). */
export function resetSealOutOfMemory(): void {
  outOfMemory = false
}

/** Deletes a SEAL object, unless the instance ran out of memory (see above). */
export function deleteSealObject(handle: { delete(): void }): void {
  if (!outOfMemory) handle.delete()
}

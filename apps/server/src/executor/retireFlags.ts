/**
 * Shared flags a pool worker sets, synchronously, before it sends the reply that
 * says it must be replaced (indexed by thread id modulo the slot count; live thread
 * ids never collide). Piscina frees a thread the moment its reply arrives, so the
 * executor reads these to avoid handing that thread the next job.
 */
export const RETIRE_FLAG_SLOTS = 1024

export function retireSlotOf(threadId: number): number {
  return threadId % RETIRE_FLAG_SLOTS
}

export function createRetireFlags(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4 * RETIRE_FLAG_SLOTS))
}

import type { ServerConfig } from '../config/ServerConfig.ts'

const MiB = 2 ** 20

/** How a worker's heap divides: what a fresh one holds, and what the settings leave for keys and jobs. */
export interface WorkerHeapPlan {
  /** A warm worker's WASM heap before any job: SEAL, its contexts and the processed database. */
  freshBytes: number
  keyCacheBytes: number
  recycleBytes: number
  /** What is left above a fresh heap with a full key cache before the worker is replaced (≤ 0: nothing). */
  headroomBytes: number
  /** Set when the rule is broken: the sentence for the operator, with the largest KEY_CACHE_BYTES that fits. */
  warning?: string
}

function mib(bytes: number): string {
  return `${(bytes / MiB).toFixed(0)} MiB`
}

/**
 * The sizing rule for a worker's heap, checked once the first worker is warm and its heap
 * is known: fresh heap + KEY_CACHE_BYTES must stay below WORKER_HEAP_RECYCLE_BYTES, or a
 * worker whose key cache fills is replaced after its job (`heapGrown`), losing every key
 * it held, and the node stalls while the next one warms (issue 30: 1 GiB of keys over a
 * 100k × 384 database, replaced after ~125 key sets, a 10.1 s stall). Undefined when the
 * heap is not known or nothing is cached.
 */
export function checkKeyCacheFits(config: ServerConfig, freshBytes: number | undefined): WorkerHeapPlan | undefined {
  if (freshBytes === undefined || config.KEY_CACHE_BYTES === 0) return undefined
  const plan: WorkerHeapPlan = {
    freshBytes,
    keyCacheBytes: config.KEY_CACHE_BYTES,
    recycleBytes: config.WORKER_HEAP_RECYCLE_BYTES,
    headroomBytes: config.WORKER_HEAP_RECYCLE_BYTES - freshBytes - config.KEY_CACHE_BYTES,
  }
  if (plan.headroomBytes > 0) return plan
  plan.warning = `KEY_CACHE_BYTES (${mib(plan.keyCacheBytes)}) + a fresh worker's heap (${mib(freshBytes)}: SEAL and the processed database) is not below WORKER_HEAP_RECYCLE_BYTES (${mib(plan.recycleBytes)}): a worker whose key cache fills will be replaced after its next job and lose every key it holds. Set KEY_CACHE_BYTES below ${mib(Math.max(0, plan.recycleBytes - freshBytes))} (less one job's scratch), or raise WORKER_HEAP_RECYCLE_BYTES (below WORKER_HEAP_BYTES, ${mib(config.WORKER_HEAP_BYTES)})`
  return plan
}

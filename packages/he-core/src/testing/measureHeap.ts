import { liveSealHandles } from '../scope/SealScope.ts'
import { wasmHeapBytes } from '../seal/loadSeal.ts'

/** What a leak check saw: tracked handles and WASM heap bytes, before and after. */
export interface HeapReport {
  handlesBefore: number
  handlesAfter: number
  heapAfterWarmup: number
  heapAfter: number
}

/**
 * Runs `fn` `warmup` times (the heap grows to its working size), then
 * `iterations` more, and reports tracked handles and heap size. A leak-free
 * operation keeps `handlesAfter === handlesBefore` and `heapAfter === heapAfterWarmup`
 * (the WASM heap only grows, so any leak over hundreds of runs shows up as growth).
 * Errors thrown by `fn` are swallowed when `expectErrors` is set (error paths must not leak either).
 */
export function measureHeap(
  fn: () => void,
  options: { warmup?: number; iterations?: number; expectErrors?: boolean } = {},
): HeapReport {
  const { warmup = 20, iterations = 300, expectErrors = false } = options
  const run = () => {
    try {
      fn()
    } catch (error) {
      if (!expectErrors) throw error
    }
  }
  const handlesBefore = liveSealHandles()
  for (let i = 0; i < warmup; i++) run()
  const heapAfterWarmup = wasmHeapBytes() ?? 0
  for (let i = 0; i < iterations; i++) run()
  return { handlesBefore, handlesAfter: liveSealHandles(), heapAfterWarmup, heapAfter: wasmHeapBytes() ?? 0 }
}

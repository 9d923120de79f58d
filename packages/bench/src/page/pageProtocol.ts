import type { BenchPlan, RuntimeFacts } from '../protocol/benchProtocol.ts'

/** What the page's main thread sends its benchmark worker. */
export interface WorkerStart {
  plan: BenchPlan
  runtime: Omit<RuntimeFacts, 'timerResolutionUs' | 'heapBytesAfter'>
}

/** Paths of the page server's small API (relative to the page's origin). */
export const PAGE_API = {
  plan: '/api/plan',
  events: '/api/events',
} as const

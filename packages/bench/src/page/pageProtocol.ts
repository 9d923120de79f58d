import type { BenchPlan, HarnessCommand, RuntimeFacts } from '../protocol/benchProtocol.ts'

/** What the page's main thread sends its benchmark worker: the plan first, then commands. */
export type WorkerMessage =
  | { type: 'start'; plan: BenchPlan; runtime: Omit<RuntimeFacts, 'timerResolutionUs' | 'heapBytesAfter'> }
  | { type: 'command'; command: HarnessCommand }

/** Paths of the page server's small API (relative to the page's origin). */
export const PAGE_API = {
  plan: '/api/plan',
  command: '/api/command',
  events: '/api/events',
} as const

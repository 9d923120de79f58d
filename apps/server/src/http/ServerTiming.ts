import { TIMING_PHASES, TIMING_TOTAL, type TimingPhase } from '@sealbox/he-core/client'

// The phase names are the contract's (TIMING_PHASES), so the client and the bench type them too.
export { TIMING_PHASES, type TimingPhase }

/** Phase durations in milliseconds, as measured wherever the work ran. */
export type PhaseTimings = Partial<Record<TimingPhase, number>>

/**
 * Collects the phases of one request and renders them as a `Server-Timing`
 * header (`queue;dur=0.4, compute;dur=27.1, total;dur=30.2`).
 */
export class ServerTiming {
  readonly #started = performance.now()
  readonly #phases = new Map<TimingPhase, number>()

  /** Adds `ms` to a phase (phases measured in several steps add up). */
  add(phase: TimingPhase, ms: number): void {
    this.#phases.set(phase, (this.#phases.get(phase) ?? 0) + ms)
  }

  addAll(timings: PhaseTimings): void {
    for (const phase of TIMING_PHASES) {
      const ms = timings[phase]
      if (ms !== undefined) this.add(phase, ms)
    }
  }

  /** Runs `fn` and books its duration to `phase`. */
  async measure<T>(phase: TimingPhase, fn: () => Promise<T> | T): Promise<T> {
    const start = performance.now()
    try {
      return await fn()
    } finally {
      this.add(phase, performance.now() - start)
    }
  }

  get phases(): PhaseTimings {
    return Object.fromEntries(this.#phases) as PhaseTimings
  }

  elapsed(): number {
    return performance.now() - this.#started
  }

  header(): string {
    const parts = [...this.#phases].map(([phase, ms]) => `${phase};dur=${ms.toFixed(2)}`)
    parts.push(`${TIMING_TOTAL};dur=${this.elapsed().toFixed(2)}`)
    return parts.join(', ')
  }
}

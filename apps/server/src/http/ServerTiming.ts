/** The phases a request can report in its `Server-Timing` header. */
/**
 * `keyload`: key bytes fetched from the durable store; `keydeserialize`: keys loaded into
 * SEAL (absent when the worker already held them); `deserialize`: the request's own
 * ciphertexts; `transfer`: moving the job and its reply between the event loop and the worker;
 * `cpu`: the worker thread's CPU time on the job (not a wall-clock phase: unaffected by other
 * processes competing for the cores); `decode` / `encode`: the route's own work on the event loop
 * turning the request body into a job and the job's result into the response body (parsing,
 * validation, envelope framing) — time no other request can use.
 */
export const TIMING_PHASES = [
  'auth',
  'decode',
  'queue',
  'keyload',
  'keydeserialize',
  'deserialize',
  'compute',
  'serialize',
  'transfer',
  'encode',
  'store',
  'cpu',
] as const
export type TimingPhase = (typeof TIMING_PHASES)[number]

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
    parts.push(`total;dur=${this.elapsed().toFixed(2)}`)
    return parts.join(', ')
  }
}

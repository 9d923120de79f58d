import type { BenchPlan, HarnessEvent, HarnessResult } from '../protocol/benchProtocol.ts'

/** The columns of the operation table. */
export const ENGINE_IDS = ['native', 'node', 'chromium', 'firefox', 'webkit'] as const
export type EngineId = (typeof ENGINE_IDS)[number]

/** Whether an engine can run here; if not, one line on how to install it. */
export type EngineAvailability = { available: true } | { available: false; reason: string; install: string }

/** What an engine run gets from the orchestrator. */
export interface EngineRunContext {
  plan: BenchPlan
  /** Every harness event, as it arrives. */
  onEvent: (event: HarnessEvent) => void
  /** The run is abandoned (browser closed, child killed) after this long. */
  timeoutMs: number
}

/** A finished engine run. */
export interface EngineRunOutcome {
  result: HarnessResult
  /** Versions worth recording (browser build, Python, seal-python, numpy…). */
  versions: Record<string, string>
}

/**
 * One column of the table: a way to run the shared harness (or its native twin) in
 * some engine. Chosen by `--engines`; each strategy owns its process, browser or venv.
 */
export interface BenchEngine {
  readonly id: EngineId
  /** Column heading, e.g. `Firefox ESR`. */
  readonly label: string
  detect(): Promise<EngineAvailability>
  run(context: EngineRunContext): Promise<EngineRunOutcome>
}

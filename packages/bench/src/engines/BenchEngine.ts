import type { BenchPlan, HarnessCommandBody, HarnessEvent, HarnessResult } from '../protocol/benchProtocol.ts'

/** The columns of the operation table. */
export const ENGINE_IDS = ['native', 'node', 'chromium', 'firefox', 'webkit'] as const
export type EngineId = (typeof ENGINE_IDS)[number]

/** Whether an engine can run here; if not, one line on how to install it. */
export type EngineAvailability = { available: true } | { available: false; reason: string; install: string }

/** What starting an engine gets from the orchestrator. */
export interface EngineStartContext {
  plan: BenchPlan
  /** Every harness event (progress, cells, environments), as it arrives. */
  onEvent: (event: HarnessEvent) => void
}

/** A started engine: a harness waiting for commands. */
export interface EngineSession {
  /** Runs one harness command; resolves when the harness has acknowledged it. */
  request(command: HarnessCommandBody, timeoutMs: number): Promise<void>
  /** The harness's result, after `finish`. */
  readonly result: HarnessResult | undefined
  /** Versions worth recording (browser build, Python, seal-python, numpy…). */
  versions(): Promise<Record<string, string>>
  /** Stops the process or browser. */
  close(): Promise<void>
}

/**
 * One column of the table: a way to run the shared harness (or its native twin) in
 * some engine. Chosen by `--engines`; each strategy owns its process, browser or venv.
 */
export interface BenchEngine {
  readonly id: EngineId
  /** Column heading, e.g. `Firefox ESR`. */
  readonly label: string
  /** Its name in ratio headings (`Firefox/Native`), e.g. `Firefox`. */
  readonly shortName: string
  /** Its colour, the same in every chart. */
  readonly color: string
  detect(): Promise<EngineAvailability>
  start(context: EngineStartContext): Promise<EngineSession>
}

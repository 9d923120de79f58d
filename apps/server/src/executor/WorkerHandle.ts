import type { WorkerDownMessage, WorkerUpMessage } from './jobMessages.ts'

/** Where a worker runs: a worker thread, a child process, or the server's own event loop. */
export type WorkerRuntime = 'thread' | 'process' | 'inline'

/** How a worker ended, for the error of the job it was running (`SIGKILL`, `exit 1`). */
export interface WorkerExit {
  cause: string
}

/**
 * One worker, whatever it runs in: the executor posts it jobs and reads its messages, and
 * knows it is gone by `onExit`. One class per runtime (`ProcessWorkerHandle`, …), in the
 * way Vitest's pools put one runtime behind one interface; spawning, warming, retiring,
 * replacing and deadlines are `WorkerSet`'s, the same for every runtime. Incoming messages are
 * validated (`WorkerUpMessageSchema`) before listeners see them.
 */
export interface WorkerHandle {
  readonly runtime: WorkerRuntime
  /** The id replies, metrics and the scheduler name it by (`process-4242`, `thread-7`, `inline`). */
  readonly id: string
  /** Sends a message; false when the worker can no longer receive one (it is exiting). */
  post(message: WorkerDownMessage): boolean
  onMessage(listener: (message: WorkerUpMessage) => void): void
  /** Called once, when the worker is gone (after `terminate`, a shutdown, a crash). */
  onExit(listener: (exit: WorkerExit) => void): void
  /** Stops the worker now, whatever it is doing (the only sure way to stop a hung job). */
  terminate(): void
}

/** Makes a fresh worker (it warms up on its own and says `warm` when it can take a job). */
export type SpawnWorker = () => WorkerHandle

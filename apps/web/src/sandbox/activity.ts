import type { LeaseState } from './WorkspaceLease.ts'

/** A long piece of worker work the page is waiting for. */
export interface Job {
  id: number
  label: string
  startedAt: number
  /** Reported by the worker between SEAL calls. */
  progress?: { label: string; done: number; total: number }
  /** Cancelling restarts the worker; the workspace is then restored into it. */
  cancellable: boolean
}

/** Transient state of the page (not persisted). */
export interface Activity {
  worker: 'starting' | 'ready' | 'restoring' | 'failed'
  workerError?: string
  job?: Job
  heapBytes?: number
  /** Outcome of the last save to IndexedDB. */
  saved: 'idle' | 'pending' | 'saving' | 'saved' | 'failed'
  saveError?: string
  /** Whether this tab owns the workspace (saves it) or another tab does (read-only); unset while starting. */
  lease?: LeaseState
  /** One-line messages for the status bar (e.g. restored, imported). */
  notice?: { tone: 'info' | 'error'; text: string }
}

export const INITIAL_ACTIVITY: Activity = { worker: 'starting', saved: 'idle' }

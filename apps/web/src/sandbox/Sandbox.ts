import { HeError, toHeError } from '@sealbox/he-core'
import type { ProgressReply } from '../worker/protocol.ts'
import { SealWorkerClient, type WorkerFactory } from '../worker/SealWorkerClient.ts'
import { loadStoredWorkspace, saveStoredWorkspace, workspaceRecordKey } from '../workspace/workspaceDb.ts'
import { emptyWorkspace, type WorkspaceState } from '../workspace/workspaceState.ts'
import { type Activity, INITIAL_ACTIVITY } from './activity.ts'
import { ExternalStore } from './ExternalStore.ts'
import { restoreIntoWorker } from './restoreIntoWorker.ts'
import { EMPTY_SERVER_VIEW, type ServerView } from './serverView.ts'
import { type LeaseState, WorkspaceLease } from './WorkspaceLease.ts'

/** Success with a value, or a coded error to show next to the control that failed. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: HeError }

/** What a job body receives: progress reporting for the activity bar. */
export interface JobControl {
  onProgress: (progress: ProgressReply) => void
}

const SAVE_DELAY_MS = 400

/**
 * The page-side controller: the workspace store, the activity bar, the SEAL worker
 * and persistence, wired together once. Panels read the stores and call the action
 * modules (sandbox/actions/*), which go through `run`.
 */
export class Sandbox {
  readonly workspace = new ExternalStore<WorkspaceState>(emptyWorkspace())
  readonly activity = new ExternalStore<Activity>(INITIAL_ACTIVITY)
  /** The Server panel's connection and runs; a restarted worker has no connection. */
  readonly server = new ExternalStore<ServerView>(EMPTY_SERVER_VIEW)
  readonly worker: SealWorkerClient
  /** What had focus when the current (or last) job started: `useFocusAfterJob` gives it back. */
  focusBeforeJob: Element | null = null
  #nextJob = 1
  #saveTimer: ReturnType<typeof setTimeout> | undefined
  #dirty = false
  #flushing: Promise<void> | undefined
  #persist = false
  readonly #lease = new WorkspaceLease(workspaceRecordKey(), (state) => this.#leaseChanged(state))

  constructor(factory: WorkerFactory) {
    this.worker = new SealWorkerClient(factory)
    this.worker.onRestart(() => {
      this.server.update((view) => ({ ...view, connection: undefined, uploaded: undefined }))
      void this.#restore()
    })
    this.workspace.subscribe(() => this.#scheduleSave())
    // Best effort: IndexedDB writes started while the page is being hidden usually complete.
    window.addEventListener('pagehide', () => void this.flush())
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'hidden') void this.flush()
    })
  }

  /** Loads the saved workspace, starts the worker and restores the workspace into it. */
  async start(): Promise<void> {
    const lease = await this.#lease.acquire()
    this.activity.update((a) => ({ ...a, lease }))
    await this.#load()
    // Only the tab that owns the workspace writes it (WorkspaceLease).
    this.#persist = lease === 'owner'
    await this.#restore()
  }

  async #load(): Promise<void> {
    try {
      const stored = await loadStoredWorkspace()
      if (stored.status === 'found') {
        this.workspace.update(() => stored.state)
      } else if (stored.status === 'invalid') {
        this.#notice('error', `The saved workspace could not be read (${stored.reason}); starting fresh.`)
      }
    } catch (error) {
      this.#notice('error', `Browser storage is unavailable (${String(error)}); the workspace will not be saved.`)
    }
  }

  /**
   * Makes this tab the workspace's owner, taking it from the tab that has it: the
   * workspace as that tab last saved it is loaded and restored into this tab's worker.
   */
  async takeOver(): Promise<Outcome<void>> {
    try {
      await this.#lease.takeOver()
    } catch (error) {
      return { ok: false, error: toHeError(error, undefined, 'CONFLICT') }
    }
    await this.#load()
    this.#persist = true
    this.activity.update((a) => ({ ...a, lease: 'owner', saved: 'idle' }))
    await this.restart()
    return { ok: true, value: undefined }
  }

  /** Another tab took the workspace over: stop saving (what is unsaved here would overwrite its keys). */
  #leaseChanged(lease: LeaseState): void {
    if (lease === 'readOnly') {
      this.#persist = false
      if (this.#saveTimer) clearTimeout(this.#saveTimer)
      this.#saveTimer = undefined
      this.#dirty = false
    }
    this.activity.update((a) => ({ ...a, lease, saved: lease === 'readOnly' ? 'idle' : a.saved }))
  }

  /**
   * Applies `change` to the workspace after writing the result to storage, so what
   * the page then shows (new keys "ready") is already saved: a reload right after
   * cannot lose it. The job that calls this stays busy until the write completes.
   */
  async commit(change: (state: WorkspaceState) => WorkspaceState): Promise<void> {
    const next = change(this.workspace.state)
    if (this.#persist) {
      // Pending changes first, then this one: writes stay in order.
      await this.flush()
      this.activity.update((a) => ({ ...a, saved: 'saving' }))
      try {
        await saveStoredWorkspace(next)
      } catch (error) {
        this.activity.update((a) => ({ ...a, saved: 'failed', saveError: String(error) }))
      }
    }
    this.workspace.update(() => next)
  }

  /**
   * Runs one piece of worker work as the page's current job (shown with a spinner,
   * cancellable when asked). Never throws: failures come back as an `Outcome`.
   */
  async run<T>(
    label: string,
    body: (control: JobControl) => Promise<T>,
    options: { cancellable?: boolean } = {},
  ): Promise<Outcome<T>> {
    const id = this.#nextJob++
    // A job started by another job's end (focus already on <body>) keeps the first one's control.
    const active = document.activeElement
    if (active && active !== document.body) this.focusBeforeJob = active
    this.activity.update((a) => ({
      ...a,
      job: { id, label, startedAt: performance.now(), cancellable: options.cancellable ?? false },
    }))
    const onProgress = (progress: ProgressReply) =>
      this.activity.update((a) =>
        a.job?.id === id
          ? { ...a, job: { ...a.job, progress: { label: progress.label, done: progress.done, total: progress.total } } }
          : a,
      )
    try {
      return { ok: true, value: await body({ onProgress }) }
    } catch (error) {
      return { ok: false, error: toHeError(error, undefined, 'INTERNAL') }
    } finally {
      this.activity.update((a) => (a.job?.id === id ? { ...a, job: undefined } : a))
    }
  }

  /**
   * Restarts the worker and restores the current workspace into it; resolves when
   * the new worker is ready (or failed). Used after replacing the workspace.
   */
  restart(): Promise<void> {
    const ready = new Promise<void>((resolve) => {
      const stop = this.activity.subscribe(() => {
        const { worker } = this.activity.state
        if (worker === 'ready' || worker === 'failed') {
          stop()
          resolve()
        }
      })
    })
    this.activity.update((a) => ({ ...a, worker: 'restoring' }))
    this.worker.cancel()
    return ready
  }

  /** Cancels the current job by restarting the worker (SEAL calls cannot be interrupted). */
  cancel(): void {
    this.worker.cancel()
  }

  /** Records the worker's heap size after a reply that reports it. */
  noteHeap(heapBytes: number | undefined): void {
    if (heapBytes !== undefined) this.activity.update((a) => ({ ...a, heapBytes }))
  }

  #notice(tone: 'info' | 'error', text: string): void {
    this.activity.update((a) => ({ ...a, notice: { tone, text } }))
  }

  async #restore(): Promise<void> {
    this.activity.update((a) => ({ ...a, worker: 'restoring', workerError: undefined, heapBytes: undefined }))
    try {
      const hello = await this.worker.request({ type: 'hello' })
      this.noteHeap(hello.heapBytes)
      const lost = await restoreIntoWorker(this)
      this.activity.update((a) => ({ ...a, worker: 'ready' }))
      if (lost.length > 0) {
        this.#notice('info', `Not kept across the restart (regenerate or upload them again): ${lost.join(', ')}.`)
      }
    } catch (error) {
      const heError = error instanceof HeError ? error : toHeError(error)
      // A cancel during restore starts another restore; only report real failures.
      if (heError.code === 'CANCELLED') return
      // node-seal 7 needs WebAssembly GC and exception handling (exnref): name the likely cause.
      const wasm = /WebAssembly|wasm|CompileError|exn|noexternref/i.test(heError.message)
      const hint = wasm ? ' This browser may be too old for node-seal 7: use a recent Chromium, Firefox or Safari.' : ''
      const message = heError.message.replace(/\.$/, '')
      this.activity.update((a) => ({ ...a, worker: 'failed', workerError: `${message}.${hint}` }))
    }
  }

  #scheduleSave(): void {
    if (!this.#persist) return
    this.#dirty = true
    if (this.activity.state.saved !== 'saving') this.activity.update((a) => ({ ...a, saved: 'pending' }))
    // Throttle, not debounce: steady activity (typing, a long pipeline) still saves every interval.
    this.#saveTimer ??= setTimeout(() => {
      this.#saveTimer = undefined
      void this.flush()
    }, SAVE_DELAY_MS)
  }

  /** Writes pending changes to IndexedDB now (also called when the page is hidden or closed). */
  flush(): Promise<void> {
    // `.finally` runs after the assignment even when there is nothing to write.
    this.#flushing ??= this.#drain().finally(() => {
      this.#flushing = undefined
    })
    return this.#flushing
  }

  async #drain(): Promise<void> {
    while (this.#dirty) {
      this.#dirty = false
      await this.#save()
    }
  }

  async #save(): Promise<void> {
    // The lease may have gone to another tab since this save was scheduled.
    if (!this.#persist) return
    this.activity.update((a) => ({ ...a, saved: 'saving' }))
    try {
      await saveStoredWorkspace(this.workspace.state)
      this.activity.update((a) => ({ ...a, saved: this.#dirty ? 'pending' : 'saved', saveError: undefined }))
    } catch (error) {
      this.activity.update((a) => ({ ...a, saved: 'failed', saveError: String(error) }))
    }
  }
}

import { HeError } from '@sealbox/he-core'

/** Whether this tab owns its workspace (and may save it), or another tab does. */
export type LeaseState = 'owner' | 'readOnly'

/**
 * One owner per workspace across the browser's tabs: a Web Locks lease named after
 * the workspace's storage record, held for as long as the tab owns it. Only the owner
 * writes the workspace, so a stale tab never overwrites a newer secret key. A second
 * tab starts read-only; "Take over" steals the lock, and the tab that loses it is told
 * (its held request rejects) and turns read-only itself. Without Web Locks (very old
 * browsers) every tab owns its workspace, as before.
 */
export class WorkspaceLease {
  readonly #name: string
  readonly #onChange: (state: LeaseState) => void

  constructor(record: string, onChange: (state: LeaseState) => void) {
    this.#name = `sealbox:${record}`
    this.#onChange = onChange
  }

  /** Takes the lease if no other tab holds it; resolves to whether this tab owns the workspace. */
  acquire(): Promise<LeaseState> {
    return this.#request({ ifAvailable: true })
  }

  /** Takes the lease from the tab that holds it (that tab turns read-only). */
  async takeOver(): Promise<void> {
    const state = await this.#request({ steal: true })
    if (state !== 'owner') throw new HeError('CONFLICT', 'Another tab kept this workspace; try Take over again.')
  }

  #request(options: { ifAvailable: true } | { steal: true }): Promise<LeaseState> {
    const locks = typeof navigator === 'undefined' ? undefined : navigator.locks
    if (!locks) return Promise.resolve('owner')
    return new Promise<LeaseState>((resolve) => {
      locks
        .request(this.#name, { mode: 'exclusive', ...options }, (lock) => {
          if (!lock) {
            resolve('readOnly')
            return undefined
          }
          resolve('owner')
          // Held until this tab closes or another tab steals it: a promise that never settles.
          return new Promise<void>(() => {})
        })
        .catch(() => {
          // Stolen by another tab's Take over: the held request rejects here with AbortError.
          this.#onChange('readOnly')
        })
    })
  }
}

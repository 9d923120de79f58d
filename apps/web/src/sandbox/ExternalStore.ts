type Listener = () => void

/**
 * An observable immutable value: replaced by `update`, observed with `subscribe`
 * (React binds it through useSyncExternalStore). The workspace and the activity
 * bar are each one of these. Plain data only: no SEAL handle ever lives here.
 */
export class ExternalStore<T> {
  #state: T
  readonly #listeners = new Set<Listener>()

  constructor(initial: T) {
    this.#state = initial
  }

  get state(): T {
    return this.#state
  }

  /** Replaces the state with `change(state)` and notifies subscribers (nothing when unchanged). */
  update(change: (state: T) => T): void {
    const next = change(this.#state)
    if (Object.is(next, this.#state)) return
    this.#state = next
    for (const listener of this.#listeners) listener()
  }

  subscribe = (listener: Listener): (() => void) => {
    this.#listeners.add(listener)
    return () => {
      this.#listeners.delete(listener)
    }
  }

  getSnapshot = (): T => this.#state
}

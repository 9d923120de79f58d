import type { StoreLog } from './KeyStore.ts'

/** One line per kind of store failure per this interval; the rest are counted into the next line. */
export const STORE_LOG_INTERVAL_MS = 10_000

/**
 * The store's log for an outage: while a database is down every request fails the same
 * way, and a line with a stack per request (5,976 lines for a 10 s outage) buries
 * everything else. Lines are keyed by level and message; the first is written at once,
 * the same one again at most every STORE_LOG_INTERVAL_MS with `suppressed` (how many
 * were folded into it). An `err` is reduced to its message and code: no stack.
 */
export class RateLimitedStoreLog implements StoreLog {
  readonly #log: StoreLog
  readonly #intervalMs: number
  readonly #now: () => number
  readonly #last = new Map<string, { at: number; suppressed: number }>()

  constructor(log: StoreLog, options: { intervalMs?: number; now?: () => number } = {}) {
    this.#log = log
    this.#intervalMs = options.intervalMs ?? STORE_LOG_INTERVAL_MS
    this.#now = options.now ?? Date.now
  }

  error(details: object, message: string): void {
    this.#write('error', details, message)
  }

  warn(details: object, message: string): void {
    this.#write('warn', details, message)
  }

  #write(level: 'error' | 'warn', details: object, message: string): void {
    const key = `${level}\u0000${message}`
    const now = this.#now()
    const last = this.#last.get(key)
    if (last && now - last.at < this.#intervalMs) {
      last.suppressed++
      return
    }
    const suppressed = last?.suppressed ?? 0
    this.#last.set(key, { at: now, suppressed: 0 })
    if (this.#last.size > 1000) this.#last.delete(this.#last.keys().next().value as string)
    this.#log[level]({ ...withoutStack(details), ...(suppressed > 0 ? { suppressed } : {}) }, message)
  }
}

function withoutStack(details: object): object {
  const { err, ...rest } = details as { err?: unknown }
  if (err === undefined) return rest
  const code = (err as { code?: unknown } | null)?.code
  return {
    ...rest,
    error: err instanceof Error ? err.message : String(err),
    ...(typeof code === 'string' ? { errorCode: code } : {}),
  }
}

/** Where progress goes: stderr in the CLI (a TTY or a log file). */
export interface ProgressStream {
  write(text: string): boolean
  isTTY?: boolean
  columns?: number
}

export interface ProgressState {
  /** 0..1 */
  fraction: number
  elapsedMs: number
  /** Remaining time, when it can be guessed. */
  etaMs: number | undefined
  /** What runs now, e.g. `n=8192 BFV/EvaluateMulCt`. */
  detail: string
}

/** `m:ss` or `h:mm:ss`. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000))
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = String(total % 60).padStart(2, '0')
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`
}

/**
 * One live progress bar with ETA. On a TTY it redraws in place; otherwise (CI, nohup
 * logs) it prints a plain line when the detail's first word changes (a new n) or every
 * `plainEveryMs`, so logs stay readable.
 */
export class ProgressLine {
  readonly #stream: ProgressStream
  readonly #label: string
  readonly #plainEveryMs: number
  #lastPlainAt = Number.NEGATIVE_INFINITY
  #lastPlainKey = ''
  #drawn = false

  constructor(stream: ProgressStream, label: string, options: { plainEveryMs?: number } = {}) {
    this.#stream = stream
    this.#label = label
    this.#plainEveryMs = options.plainEveryMs ?? 15_000
  }

  update(state: ProgressState): void {
    const line = this.#render(state)
    if (this.#stream.isTTY) {
      const width = Math.max(40, (this.#stream.columns ?? 120) - 1)
      this.#stream.write(`\r\x1b[2K${line.slice(0, width)}`)
      this.#drawn = true
      return
    }
    const key = state.detail.split(' ')[0] ?? ''
    if (key !== this.#lastPlainKey || state.elapsedMs - this.#lastPlainAt >= this.#plainEveryMs) {
      this.#lastPlainKey = key
      this.#lastPlainAt = state.elapsedMs
      this.#stream.write(`${line}\n`)
    }
  }

  /** Replaces the bar with a final line. */
  finish(message: string): void {
    if (this.#stream.isTTY && this.#drawn) this.#stream.write('\r\x1b[2K')
    this.#stream.write(`[${this.#label}] ${message}\n`)
    this.#drawn = false
  }

  #render(state: ProgressState): string {
    const fraction = Math.min(1, Math.max(0, state.fraction))
    const width = 24
    const filled = Math.round(fraction * width)
    const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`
    const percent = `${Math.floor(fraction * 100)}%`.padStart(4)
    const eta = state.etaMs === undefined ? 'ETA --:--' : `ETA ${formatDuration(state.etaMs)}`
    return `[${this.#label}] ${bar} ${percent}  ${formatDuration(state.elapsedMs)} elapsed  ${eta}  ${state.detail}`
  }
}

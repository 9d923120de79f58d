/** Where progress goes: stderr in the CLI (a TTY or a log file). */
export interface ProgressStream {
  write(text: string): boolean
  isTTY?: boolean
  columns?: number
}

/** `m:ss` or `h:mm:ss`. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000))
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = String(total % 60).padStart(2, '0')
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`
}

/** One line of the board: an engine and how far it is. */
export interface ProgressItem {
  label: string
  /** 0..1 */
  fraction: number
  /** Time this item has been busy. */
  elapsedMs: number
  /** Its remaining time, when it can be guessed. */
  etaMs: number | undefined
  /** What runs now, e.g. `n=8192 BFV/EvaluateMulCt`, or `done`. */
  detail: string
}

function renderItem(item: ProgressItem, labelWidth: number): string {
  const fraction = Math.min(1, Math.max(0, item.fraction))
  const width = 24
  const filled = Math.round(fraction * width)
  const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`
  const percent = `${Math.floor(fraction * 100)}%`.padStart(4)
  const eta = item.etaMs === undefined ? 'ETA --:--' : `ETA ${formatDuration(item.etaMs)}`
  return `[${item.label.padEnd(labelWidth)}] ${bar} ${percent}  ${formatDuration(item.elapsedMs)} busy  ${eta}  ${item.detail}`
}

/**
 * Live progress bars with ETA, one per item (an engine, or a whole run), and an optional
 * footer (the total). On a TTY the block is redrawn in place; otherwise (CI, nohup logs)
 * the block is printed as plain lines every `plainEveryMs` or when the first word of the
 * footer (without one: of the first item's detail) changes, so logs stay readable.
 */
export class ProgressBoard {
  readonly #stream: ProgressStream
  readonly #plainEveryMs: number
  #drawnLines = 0
  #lastPlainAt = Number.NEGATIVE_INFINITY
  #lastPlainKey = ''
  #last: { items: ProgressItem[]; footer: string | undefined } | undefined

  constructor(stream: ProgressStream, options: { plainEveryMs?: number } = {}) {
    this.#stream = stream
    this.#plainEveryMs = options.plainEveryMs ?? 15_000
  }

  update(items: ProgressItem[], footer: string | undefined, nowMs: number): void {
    this.#last = { items, footer }
    if (this.#stream.isTTY) {
      this.#redraw()
      return
    }
    const key = (footer ?? items[0]?.detail ?? '').split(' ')[0] ?? ''
    if (key !== this.#lastPlainKey || nowMs - this.#lastPlainAt >= this.#plainEveryMs) {
      this.#lastPlainKey = key
      this.#lastPlainAt = nowMs
      this.#stream.write(`${this.#lines().join('\n')}\n`)
    }
  }

  /** Prints a message above the board. */
  log(line: string): void {
    this.#clear()
    this.#stream.write(`${line}\n`)
    if (this.#stream.isTTY && this.#last) this.#redraw()
  }

  /** Prints the final state as plain lines, and `message` under them. */
  finish(message?: string): void {
    this.#clear()
    const lines = [...this.#lines(), ...(message === undefined ? [] : [message])]
    if (lines.length > 0) this.#stream.write(`${lines.join('\n')}\n`)
    this.#last = undefined
  }

  #lines(): string[] {
    if (!this.#last) return []
    const labelWidth = Math.max(...this.#last.items.map((item) => item.label.length), 0)
    const items = this.#last.items.map((item) => renderItem(item, labelWidth))
    return this.#last.footer === undefined ? items : [...items, this.#last.footer]
  }

  #clear(): void {
    if (!this.#stream.isTTY || this.#drawnLines === 0) return
    this.#stream.write(`\x1b[${this.#drawnLines}A\x1b[0J`)
    this.#drawnLines = 0
  }

  #redraw(): void {
    const width = Math.max(40, (this.#stream.columns ?? 120) - 1)
    const lines = this.#lines().map((line) => line.slice(0, width))
    this.#clear()
    this.#stream.write(`${lines.join('\n')}\n`)
    this.#drawnLines = lines.length
  }
}

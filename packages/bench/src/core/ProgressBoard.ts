import { formatDuration, type ProgressStream } from './ProgressLine.ts'

export type { ProgressStream } from './ProgressLine.ts'

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
 * Live progress bars with ETA, one per item (engine), plus a footer (the total). On a
 * TTY the block is redrawn in place; otherwise (CI, nohup logs) the block is printed as
 * plain lines every `plainEveryMs` or when the footer's first word changes, so logs stay
 * readable.
 */
export class ProgressBoard {
  readonly #stream: ProgressStream
  readonly #plainEveryMs: number
  #drawnLines = 0
  #lastPlainAt = Number.NEGATIVE_INFINITY
  #lastPlainKey = ''
  #last: { items: ProgressItem[]; footer: string } | undefined

  constructor(stream: ProgressStream, options: { plainEveryMs?: number } = {}) {
    this.#stream = stream
    this.#plainEveryMs = options.plainEveryMs ?? 15_000
  }

  update(items: ProgressItem[], footer: string, nowMs: number): void {
    this.#last = { items, footer }
    if (this.#stream.isTTY) {
      this.#redraw()
      return
    }
    const key = footer.split(' ')[0] ?? ''
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

  /** Prints the final state as plain lines. */
  finish(): void {
    this.#clear()
    if (this.#last) this.#stream.write(`${this.#lines().join('\n')}\n`)
    this.#last = undefined
  }

  #lines(): string[] {
    if (!this.#last) return []
    const labelWidth = Math.max(...this.#last.items.map((item) => item.label.length), 0)
    return [...this.#last.items.map((item) => renderItem(item, labelWidth)), this.#last.footer]
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

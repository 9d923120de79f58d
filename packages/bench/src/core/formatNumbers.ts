/** µs like the published table: 3 significant digits below 1000 (9.80, 95.3, 799), whole numbers above. */
export function formatMicros(us: number | undefined): string {
  if (us === undefined || !Number.isFinite(us)) return ''
  if (us >= 1000) return String(Math.round(us))
  if (us === 0) return '0'
  return us.toPrecision(3)
}

/** A ratio as `3.41×` (`12.3×` from 10 up). */
export function formatRatio(ratio: number | undefined): string {
  if (ratio === undefined || !Number.isFinite(ratio)) return ''
  return `${ratio >= 10 ? ratio.toFixed(1) : ratio.toFixed(2)}×`
}

/** Milliseconds as `850 ms`, `12.3 s` or `4 min 05 s`. */
export function formatMillis(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  const total = Math.round(ms / 1000)
  return `${Math.floor(total / 60)} min ${String(total % 60).padStart(2, '0')} s`
}

/** Bytes as GiB/MiB. */
export function formatBytes(bytes: number): string {
  if (bytes >= 2 ** 30) return `${(bytes / 2 ** 30).toFixed(1)} GiB`
  return `${(bytes / 2 ** 20).toFixed(0)} MiB`
}

/** Milliseconds with three significant figures at most (0.350, 16.3, 203.5); `–` when not a number. */
export function formatMs(value: number): string {
  return Number.isFinite(value) ? value.toFixed(value < 1 ? 3 : value < 10 ? 2 : 1) : '–'
}

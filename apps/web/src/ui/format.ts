/** "1.4 MiB", "86.5 KiB", "512 B": sizes the way people read them. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return '—'
  if (bytes < 1024) return `${bytes} B`
  const units = ['KiB', 'MiB', 'GiB']
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${value >= 100 ? value.toFixed(0) : value.toFixed(1)} ${units[unit]}`
}

/** "0.42 ms", "37 ms", "2.4 s". */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return '—'
  if (ms < 1) return `${ms.toFixed(2)} ms`
  if (ms < 1000) return `${ms.toFixed(ms < 10 ? 1 : 0)} ms`
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`
}

/** Thousands separators without locale surprises in tests: 1 032 193 → "1,032,193". */
export function formatInteger(value: number | bigint): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

/** Milliseconds with three significant figures at most (0.350, 16.3, 203.5); `–` when not a number. */
export function formatMs(value: number): string {
  return Number.isFinite(value) ? value.toFixed(value < 1 ? 3 : value < 10 ? 2 : 1) : '–'
}

/** "step 3 (multiply)": how messages name a step (1-based, as people count). */
export function stepLabel(index: number, op: string): string {
  return `step ${index + 1} (${op})`
}

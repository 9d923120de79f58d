/** How a printed output line looks. */
export interface OutputFormat {
  /** How many leading slots to show. */
  slots: number
  /** Digits after the point for CKKS values; undefined prints integers (BFV/BGV). */
  decimals: number | undefined
}

/** One slot value as printed: integers in full, reals with fixed decimals and no "-0". */
export function formatSlot(value: bigint | number, decimals: number | undefined): string {
  if (decimals === undefined) return String(value)
  const text = Number(value).toFixed(decimals)
  // -0.0000 and 0.0000 are the same number; CKKS noise must not flip the sign of a zero.
  return /^-0(\.0*)?$/.test(text) ? text.slice(1) : text
}

/**
 * The line `runWorkspace` prints for one output, e.g. `r = [1, 4, 9, 0, ...]`, and
 * exactly what generated programs print (generated code carries a copy of this
 * function; the codegen tests hold the two equal).
 */
export function formatOutputLine(name: string, values: ReadonlyArray<bigint | number>, format: OutputFormat): string {
  const shown = values.slice(0, format.slots).map((value) => formatSlot(value, format.decimals))
  return `${name} = [${shown.join(', ')}${values.length > format.slots ? ', ...' : ''}]`
}

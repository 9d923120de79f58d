/**
 * Which steps of a pipeline the printed values need: the steps that make a printed name,
 * and (walking back) every step that makes a name one of those reads. An exported
 * program runs only these, so unticking an exhausted result under Print skips the step
 * that made it (it ran anyway, printed nothing and exited 1). Indices, oldest first.
 */
export function stepsForPrint<Step>(
  steps: readonly Step[],
  print: readonly string[],
  parts: (step: Step) => { reads: readonly string[]; out: string },
): number[] {
  const wanted = new Set(print)
  const kept: number[] = []
  for (let index = steps.length - 1; index >= 0; index--) {
    const step = steps[index] as Step
    const { reads, out } = parts(step)
    if (!wanted.has(out)) continue
    kept.push(index)
    // A later step may write the same name again: only the last writer is needed.
    wanted.delete(out)
    for (const name of reads) wanted.add(name)
  }
  return kept.reverse()
}

import { EXAMPLE_WORKSPACES, runWorkspace } from '@sealbox/he-core'

/**
 * What the BFV example workspace prints when he-core runs it in Node: the lines a
 * browser engine must show on the Code panel after loading and running the example.
 */
export async function bfvExampleLines(): Promise<string> {
  const run = await runWorkspace(EXAMPLE_WORKSPACES.bfv)
  return run.lines.join('\n')
}

/** Steps in the BFV example's pipeline (the last one must finish). */
export const BFV_EXAMPLE_STEPS = EXAMPLE_WORKSPACES.bfv.steps.length

/** Printed lines (`name = [1.5, -2, ...]`) by name, to compare CKKS output within its precision. */
export function numbersOf(lines: string): Map<string, number[]> {
  const byName = new Map<string, number[]>()
  for (const line of lines.trim().split('\n')) {
    const [name, values = ''] = line.split(' = ')
    byName.set(name ?? '', (values.match(/-?\d+(\.\d+)?(e-?\d+)?/g) ?? []).map(Number))
  }
  return byName
}

/** What the CKKS example prints when he-core runs it in Node (values vary in the last digits). */
export async function ckksExampleLines(): Promise<string> {
  const run = await runWorkspace(EXAMPLE_WORKSPACES.ckks)
  return run.lines.join('\n')
}

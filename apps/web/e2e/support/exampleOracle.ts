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

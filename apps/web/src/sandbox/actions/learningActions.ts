import { HeError } from '@sealbox/he-core'
import type { ExactComparison, Inspection, RequestOf } from '../../worker/protocol.ts'
import { toProgramStep } from '../../workspace/pipeline.ts'
import type { Outcome, Sandbox } from '../Sandbox.ts'
import { entryOfVariable, putVariable } from './variableActions.ts'

/**
 * "Decrypt anyway": runs a step whose result the evaluator refused (its noise budget
 * ran out) once more, keeping the result so its garbage can be looked at. The step
 * keeps its failed outcome — the result is wrong, and the page says so.
 */
export async function decryptAnyway(sandbox: Sandbox, index: number): Promise<Outcome<void>> {
  return sandbox.run(`Running step ${index + 1} anyway`, async () => {
    const entry = sandbox.workspace.state.pipeline[index]
    if (!entry) throw new HeError('NOT_FOUND', `There is no step ${index + 1}.`)
    const step = toProgramStep(entry, index)
    const reply = await sandbox.worker.request({ type: 'runStep', index, step, anyway: true })
    sandbox.noteHeap(reply.heapBytes)
    sandbox.workspace.update((state) => putVariable(state, entryOfVariable(reply.variable, 'pipeline')))
  })
}

/** What the inspector shows about a key or variable (asked of the worker, which holds the SEAL object). */
export async function inspect(sandbox: Sandbox, target: RequestOf<'inspect'>['target']): Promise<Inspection> {
  const reply = await sandbox.worker.request({ type: 'inspect', target })
  return reply.inspection
}

/** The exact results of a program over the workspace values, next to the decrypted ones. */
export async function compareWithExact(
  sandbox: Sandbox,
  program: RequestOf<'compareExact'>['program'],
): Promise<ExactComparison[]> {
  const reply = await sandbox.worker.request({ type: 'compareExact', program })
  return reply.results
}

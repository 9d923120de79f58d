import { HeError } from '@sealbox/he-core'
import { defaultOperands } from '../../workspace/defaultOperands.ts'
import { freeName } from '../../workspace/names.ts'
import { toProgramStep } from '../../workspace/pipeline.ts'
import type { PipelineEntry, StepOutcome, WorkspaceState } from '../../workspace/workspaceState.ts'
import type { Outcome, Sandbox } from '../Sandbox.ts'
import { entryOfVariable, putVariable } from './variableActions.ts'

function newId(): string {
  return crypto.randomUUID()
}

/** Names readable before step `index`: workspace variables and earlier results. */
export function namesBefore(
  state: WorkspaceState,
  index: number,
): Array<{ name: string; kind: 'plaintext' | 'ciphertext' }> {
  const names = new Map<string, 'plaintext' | 'ciphertext'>()
  for (const variable of state.variables) if (variable.origin !== 'pipeline') names.set(variable.name, variable.kind)
  for (const entry of state.pipeline.slice(0, index)) {
    const kindOfA = names.get(entry.a) ?? 'ciphertext'
    const keepsKind = entry.op === 'modSwitchToNext' || entry.op === 'modSwitchToLast'
    names.set(entry.out, keepsKind ? kindOfA : 'ciphertext')
  }
  return [...names].map(([name, kind]) => ({ name, kind }))
}

function update(sandbox: Sandbox, change: (pipeline: PipelineEntry[]) => PipelineEntry[]): void {
  sandbox.workspace.update((state) => ({ ...state, pipeline: change(state.pipeline) }))
}

/** Appends a step of `op`, reading the latest useful values (`defaultOperands`) and writing a fresh name. */
export function addStep(sandbox: Sandbox, op: string): void {
  const state = sandbox.workspace.state
  const { a, b } = defaultOperands(state, namesBefore(state, state.pipeline.length), op)
  const taken = new Set([...state.variables.map((v) => v.name), ...state.pipeline.map((e) => e.out)])
  const entry: PipelineEntry = {
    id: newId(),
    op,
    a,
    b,
    steps: 1,
    exponent: 2,
    align: false,
    out: freeName(`r${state.pipeline.length + 1}`, taken),
  }
  update(sandbox, (pipeline) => [...pipeline, entry])
}

export function changeStep(sandbox: Sandbox, id: string, change: Partial<PipelineEntry>): void {
  update(sandbox, (pipeline) =>
    pipeline.map((entry) => (entry.id === id ? { ...entry, ...change, last: undefined } : entry)),
  )
}

export function removeStep(sandbox: Sandbox, id: string): void {
  update(sandbox, (pipeline) => pipeline.filter((entry) => entry.id !== id))
}

/** Moves a step up (−1) or down (+1). */
export function moveStep(sandbox: Sandbox, id: string, delta: -1 | 1): void {
  update(sandbox, (pipeline) => {
    const index = pipeline.findIndex((entry) => entry.id === id)
    const target = index + delta
    if (index < 0 || target < 0 || target >= pipeline.length) return pipeline
    const next = [...pipeline]
    const [moved] = next.splice(index, 1)
    if (moved) next.splice(target, 0, moved)
    return next
  })
}

function setOutcome(sandbox: Sandbox, index: number, last: StepOutcome | undefined): void {
  update(sandbox, (pipeline) => pipeline.map((entry, i) => (i === index ? { ...entry, last } : entry)))
}

async function executeStep(sandbox: Sandbox, index: number): Promise<boolean> {
  const entry = sandbox.workspace.state.pipeline[index]
  if (!entry) return false
  try {
    const step = toProgramStep(entry, index)
    const reply = await sandbox.worker.request({ type: 'runStep', index, step })
    sandbox.noteHeap(reply.heapBytes)
    sandbox.workspace.update((state) => putVariable(state, entryOfVariable(reply.variable, 'pipeline')))
    setOutcome(sandbox, index, { status: 'ok', ...reply.result })
    return true
  } catch (error) {
    if (HeError.is(error, 'CANCELLED')) throw error
    const heError = error instanceof HeError ? error : new HeError('INTERNAL', String(error))
    setOutcome(sandbox, index, { status: 'failed', code: heError.code, message: heError.message })
    return false
  }
}

/** Runs one step on the current workspace values. */
export async function runOneStep(sandbox: Sandbox, index: number): Promise<Outcome<boolean>> {
  return sandbox.run(`Running step ${index + 1}`, () => executeStep(sandbox, index))
}

/** Runs every step in order; the first failure stops the run (its reason is on that step). */
export async function runAllSteps(sandbox: Sandbox): Promise<Outcome<boolean>> {
  const total = sandbox.workspace.state.pipeline.length
  update(sandbox, (pipeline) => pipeline.map((entry) => ({ ...entry, last: undefined })))
  return sandbox.run(
    `Running ${total} step${total === 1 ? '' : 's'}`,
    async ({ onProgress }) => {
      for (let index = 0; index < total; index++) {
        onProgress({ type: 'progress', id: 0, label: `step ${index + 1}`, done: index, total })
        if (!(await executeStep(sandbox, index))) return false
      }
      return true
    },
    { cancellable: true },
  )
}

import { describeParams, type ProgramStep, parseParams, powerOfTwoSteps, type WorkspaceInput } from '@sealbox/he-core'
import { parseValues } from './parseValues.ts'
import { toProgramStep } from './pipeline.ts'
import { stepsForPrint } from './stepsForPrint.ts'
import type { VariableEntry, WorkspaceState } from './workspaceState.ts'

/** The he-core workspace a sandbox state describes, or why it cannot, plus what was left out. */
export interface WorkspaceSpecOutcome {
  spec?: WorkspaceInput
  /** Why no spec could be made (plain words). */
  problem?: string
  /** Variables generated code cannot rebuild (uploaded ones: their numbers are not known here). */
  leftOut: string[]
}

/** The numbers a variable was made from, following encryptions/decryptions back to typed values. */
function valuesOf(
  variable: VariableEntry,
  byName: Map<string, VariableEntry>,
  state: WorkspaceState,
): bigint[] | number[] | undefined {
  let current: VariableEntry | undefined = variable
  const seen = new Set<string>()
  while (current && current.origin === 'convert' && current.source && !seen.has(current.name)) {
    seen.add(current.name)
    current = byName.get(current.source)
  }
  if (current?.origin !== 'values' || current.values === undefined || !state.applied) return undefined
  const facts = describeParams(parseParams(state.applied.input))
  const parsed = parseValues(current.values, {
    scheme: state.applied.input.scheme,
    slotCount: facts.slotCount,
    ...(state.applied.plainModulus === undefined ? {} : { plainModulus: state.applied.plainModulus }),
  })
  return parsed.ok ? parsed.values : undefined
}

/**
 * Workspace variables a generated program cannot rebuild: uploaded (or converted from
 * an upload), so the numbers they hold are not known here. They cannot be printed.
 */
export function unrebuildable(state: WorkspaceState): Set<string> {
  const byName = new Map(state.variables.map((v) => [v.name, v]))
  const produced = new Set(state.pipeline.map((entry) => entry.out))
  return new Set(
    state.variables
      .filter((v) => v.origin !== 'pipeline' && !produced.has(v.name) && !valuesOf(v, byName, state))
      .map((v) => v.name),
  )
}

/**
 * Why a program cannot rebuild a left-out variable: `upload` (its numbers came in a
 * file), or `result` (decrypted or encrypted from a pipeline result, which the program
 * computes but never turns into a second variable).
 */
export function leftOutReason(state: WorkspaceState, name: string): 'upload' | 'result' {
  const byName = new Map(state.variables.map((v) => [v.name, v]))
  const seen = new Set<string>()
  let current = byName.get(name)
  while (current && current.origin === 'convert' && current.source && !seen.has(current.name)) {
    seen.add(current.name)
    current = byName.get(current.source)
  }
  return current?.origin === 'pipeline' ? 'result' : 'upload'
}

/** Names the pipeline produces that no later step reads: what a program would print by default. */
export function defaultPrint(state: WorkspaceState): string[] {
  const read = new Set(state.pipeline.flatMap((entry) => [entry.a, entry.b]))
  const leaves = state.pipeline.map((entry) => entry.out).filter((out) => !read.has(out))
  if (leaves.length > 0) return leaves
  const lost = unrebuildable(state)
  return state.variables.filter((v) => v.origin !== 'pipeline' && !lost.has(v.name)).map((v) => v.name)
}

/**
 * Turns the sandbox state into he-core's WorkspaceSpec for `generateCode`: the same
 * parameters, the keys as made here, the variables from the numbers they were typed
 * from, the pipeline steps, and `print` (validated by he-core when code is made).
 */
export function workspaceSpecOf(
  state: WorkspaceState,
  chosen: readonly string[],
  options: { whole?: boolean } = {},
): WorkspaceSpecOutcome {
  let print = [...chosen]
  const { applied, variables, pipeline } = state
  if (!applied) return { problem: 'Create the context on the Parameters panel first.', leftOut: [] }
  const allSteps: ProgramStep[] = []
  try {
    for (const [index, entry] of pipeline.entries()) allSteps.push(toProgramStep(entry, index))
  } catch (error) {
    return { problem: (error as Error).message, leftOut: [] }
  }
  // Only the steps the printed values need: an unticked (say, exhausted) result is not computed.
  // A link (`whole`) keeps every step and every typed value: it reopens the workspace, not one printout.
  const steps = options.whole
    ? allSteps
    : stepsForPrint(allSteps, print, (step) => ({
        reads: 'b' in step ? [step.a, step.b] : [step.a],
        out: step.out,
      })).map((index) => allSteps[index] as ProgramStep)
  const produced = new Set(steps.map((step) => step.out))
  const used = new Set([
    ...steps.flatMap((step) => ('b' in step ? [step.a, step.b] : [step.a])),
    ...print,
    ...(options.whole ? variables.map((v) => v.name) : []),
  ])
  const byName = new Map(variables.map((v) => [v.name, v]))
  const leftOut: string[] = []
  const specVariables: WorkspaceInput['variables'] = []
  for (const variable of variables) {
    if (variable.origin === 'pipeline' || produced.has(variable.name) || !used.has(variable.name)) continue
    const values = valuesOf(variable, byName, state)
    if (!values) {
      leftOut.push(variable.name)
      continue
    }
    specVariables.push({ name: variable.name, kind: variable.kind, values })
  }
  const lost = new Set(leftOut)
  const reader = steps.findIndex((step) => ('b' in step ? [step.a, step.b] : [step.a]).some((name) => lost.has(name)))
  const readStep = steps[reader]
  if (readStep) {
    const name = ('b' in readStep ? [readStep.a, readStep.b] : [readStep.a]).find((n) => lost.has(n))
    return {
      problem: `Step ${reader + 1} (${readStep.op}) reads '${name}', which was uploaded: the numbers it holds are not known here, so a program cannot rebuild it. Make it from typed numbers on the Variables panel to export this pipeline.`,
      leftOut,
    }
  }
  // An uploaded value cannot be defined by the program, so it cannot be printed either.
  print = print.filter((name) => !lost.has(name))
  if (print.length === 0) return { problem: 'Choose at least one value to print.', leftOut }
  return {
    spec: {
      version: 1,
      params: applied.input,
      keys: keysSpecOf(state, 'auto'),
      encryption: 'publicKey',
      variables: specVariables,
      steps,
      print: [...print],
      display: { slots: 8, decimals: 4 },
    },
    leftOut,
  }
}

/**
 * The key options of a spec: the keys as made here; without relinearization or Galois
 * keys, `absent` (`'auto'`: what the pipeline needs; `false`/`'none'`: nothing).
 */
function keysSpecOf(state: WorkspaceState, absent: 'auto' | 'none'): NonNullable<WorkspaceInput['keys']> {
  const { applied, keys } = state
  const galoisSteps = keys.galoisKeys?.steps
  const powerOfTwo = applied ? powerOfTwoSteps(applied.input.polyModulusDegree).sort((a, b) => a - b) : []
  const galois =
    galoisSteps === undefined
      ? absent
      : galoisSteps.length === powerOfTwo.length && galoisSteps.every((step, i) => step === powerOfTwo[i])
        ? ('powerOfTwo' as const)
        : { steps: [...galoisSteps] }
  return {
    relin: keys.relinKeys ? true : absent === 'auto' ? 'auto' : false,
    galois,
    seeded: Boolean(keys.relinKeys?.seeded || keys.galoisKeys?.seeded),
  }
}

/**
 * What "Copy link" holds: the whole workspace (parameters, every typed number, every
 * step, the values ticked to print), or — when there is nothing to print yet, no value
 * typed and no step — the parameters and key options alone (`print`, `variables` and
 * `steps` empty), which opens as a context with fresh keys.
 */
export function linkSpecOf(state: WorkspaceState): WorkspaceSpecOutcome {
  // The Print ticks travel too, for the names a program can still print.
  const printable = new Set([
    ...state.pipeline.map((entry) => entry.out),
    ...state.variables.filter((v) => v.origin !== 'pipeline').map((v) => v.name),
  ])
  const ticked = state.print?.filter((name) => printable.has(name))
  const print = ticked && ticked.length > 0 ? ticked : defaultPrint(state)
  const outcome = workspaceSpecOf(state, print, { whole: true })
  if (outcome.spec || !state.applied || state.pipeline.length > 0 || print.length > 0) return outcome
  return {
    spec: {
      version: 1,
      params: state.applied.input,
      keys: keysSpecOf(state, 'none'),
      variables: [],
      steps: [],
      print: [],
    },
    leftOut: outcome.leftOut.length > 0 ? outcome.leftOut : [...unrebuildable(state)],
  }
}

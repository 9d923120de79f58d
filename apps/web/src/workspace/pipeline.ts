import {
  analyzeProgram,
  galoisElementOf,
  HeError,
  missingProgramKeys,
  PROGRAM_OPS,
  type ProgramAnalysis,
  type ProgramOp,
  type ProgramSpec,
  ProgramStep,
  parseParams,
} from '@sealbox/he-core'
import { formWords } from '../ui/formWords.ts'
import type { PipelineEntry, WorkspaceState } from './workspaceState.ts'

/** True when `op` is one of he-core's program ops. */
export function isProgramOp(op: string): op is ProgramOp {
  return Object.hasOwn(PROGRAM_OPS, op)
}

/** Ops whose `steps` field is a rotation amount. */
export function hasRotationSteps(op: string): boolean {
  return op === 'rotateRows' || op === 'rotateVector'
}

/** Whether the op reads a second operand `b`. */
export function hasOperandB(op: string): boolean {
  return isProgramOp(op) && PROGRAM_OPS[op].operands.some((operand) => operand.field === 'b')
}

/** The he-core step an edited entry stands for, or the reason it is not one yet. */
export function toProgramStep(entry: PipelineEntry, index: number): ProgramStep {
  if (!isProgramOp(entry.op)) throw new HeError('INVALID_PROGRAM', `Step ${index + 1}: unknown operation '${entry.op}'`)
  const info = PROGRAM_OPS[entry.op]
  const step: Record<string, unknown> = { op: entry.op, a: entry.a, out: entry.out }
  if (hasOperandB(entry.op)) step.b = entry.b
  if (hasRotationSteps(entry.op)) step.steps = entry.steps
  if (entry.op === 'exponentiate') step.exponent = entry.exponent
  if (info.alignable && entry.align) step.align = true
  for (const operand of info.operands) {
    if (step[operand.field] !== '') continue
    const needs = operand.kind === 'plaintext' ? ' (a plaintext: make one on the Variables panel)' : ''
    throw new HeError('INVALID_PROGRAM', `Step ${index + 1} (${entry.op}): choose operand ${operand.field}${needs}`, {
      details: { stepIndex: index, field: operand.field },
    })
  }
  const parsed = ProgramStep.safeParse(step)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const field = issue?.path.join('.') ?? 'step'
    const what = field === 'out' ? 'result name' : field === 'a' || field === 'b' ? `operand ${field}` : field
    throw new HeError('INVALID_PROGRAM', `Step ${index + 1} (${entry.op}): ${what}: ${issue?.message ?? 'invalid'}`, {
      details: { stepIndex: index, field },
    })
  }
  return parsed.data
}

/** What the whole pipeline needs and what stands in its way, computed without SEAL. */
export interface PipelineCheck {
  /** The program (inputs = workspace variables it reads), when the steps form one. */
  program?: ProgramSpec
  analysis?: ProgramAnalysis
  /** Plain-language problems, first the one that stops the run. */
  problems: Array<{ stepIndex?: number; message: string; code: string }>
}

/**
 * Builds the he-core program of the pipeline — inputs are the workspace variables it
 * reads, outputs every step's result — and checks it with `analyzeProgram` and
 * `missingProgramKeys` against the workspace's parameters and keys. The problems are
 * in the form's words (he-core's "step 2 (rotateColumns)" reads "Step 2 (Rotate
 * columns (swap rows))"): they are shown as they are, on the steps and the Server panel.
 */
export function checkPipeline(state: WorkspaceState): PipelineCheck {
  const check = checkPipelineInCoreWords(state)
  return { ...check, problems: check.problems.map((problem) => ({ ...problem, message: formWords(problem.message) })) }
}

function checkPipelineInCoreWords(state: WorkspaceState): PipelineCheck {
  const problems: PipelineCheck['problems'] = []
  const { applied, pipeline, variables, keys } = state
  if (!applied || pipeline.length === 0) return { problems }
  const made = new Set<string>()
  const userValues = new Map(variables.filter((v) => v.origin !== 'pipeline').map((v) => [v.name, v.kind]))
  const inputs: ProgramSpec['inputs'] = []
  const steps: ProgramStep[] = []
  for (const [index, entry] of pipeline.entries()) {
    let step: ProgramStep
    try {
      step = toProgramStep(entry, index)
    } catch (error) {
      const heError = error as HeError
      problems.push({ stepIndex: index, message: heError.message, code: heError.code })
      return { problems }
    }
    for (const name of 'b' in step ? [step.a, step.b] : [step.a]) {
      if (made.has(name) || inputs.some((input) => input.name === name)) continue
      const kind = userValues.get(name)
      if (!kind) {
        problems.push({
          stepIndex: index,
          code: 'NOT_FOUND',
          message: `Step ${index + 1} (${step.op}) reads '${name}', which is neither a variable nor the result of an earlier step.`,
        })
        return { problems }
      }
      inputs.push({ name, kind })
    }
    if (userValues.has(step.out)) {
      problems.push({
        stepIndex: index,
        code: 'INVALID_PROGRAM',
        message: `Step ${index + 1} (${step.op}) would overwrite your variable '${step.out}'; give its result a new name.`,
      })
      return { problems }
    }
    made.add(step.out)
    steps.push(step)
  }
  const program: ProgramSpec = { version: 1, inputs, steps, outputs: steps.map((s) => s.out) }
  let analysis: ProgramAnalysis
  try {
    analysis = analyzeProgram(program, parseParams(applied.input))
  } catch (error) {
    const heError = error instanceof HeError ? error : new HeError('INVALID_PROGRAM', String(error))
    const stepIndex = typeof heError.details?.stepIndex === 'number' ? heError.details.stepIndex : undefined
    problems.push({
      message: capitalize(heError.message),
      code: heError.code,
      ...(stepIndex === undefined ? {} : { stepIndex }),
    })
    return { program, problems }
  }
  const n = applied.input.polyModulusDegree
  const elements = new Set((keys.galoisKeys?.steps ?? []).map((step) => galoisElementOf(n, step)))
  const missing = missingProgramKeys(analysis, {
    relinKeys: keys.relinKeys ? { hasKey: () => true } : undefined,
    // Uploaded Galois keys without a step list: SEAL will say at run time.
    galoisKeys: keys.galoisKeys
      ? { hasKey: (element) => keys.galoisKeys?.steps === undefined || elements.has(element) }
      : undefined,
  })
  for (const key of missing) {
    problems.push({ stepIndex: key.stepIndex, code: 'MISSING_KEY', message: `${capitalize(key.message)}.` })
  }
  return { program, analysis, problems }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}

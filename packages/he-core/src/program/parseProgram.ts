import type { z } from 'zod'
import { HeError } from '../errors/HeError.ts'
import { type ProgramLimits, resolveLimits } from './ProgramLimits.ts'
import { ProgramSpec, type ValueKind } from './ProgramSpec.ts'
import { operandsOf, outputKindOf, PROGRAM_OP_NAMES, PROGRAM_OPS, stepLabel } from './programOps.ts'

/** Options for `parseProgram`. */
export interface ParseProgramOptions {
  limits?: Partial<ProgramLimits>
}

/** A program that passed `parseProgram`, with the kind of every name it defines. */
export interface ParsedProgram {
  program: ProgramSpec
  kinds: ReadonlyMap<string, ValueKind>
  /** Which step defines each name (-1 for inputs). */
  definedBy: ReadonlyMap<string, number>
}

function invalid(message: string, details: Record<string, unknown>): HeError {
  return new HeError('INVALID_PROGRAM', message, { details })
}

function stepError(index: number, op: string, message: string, code: 'INVALID_PROGRAM' | 'LIMIT_EXCEEDED') {
  return new HeError(code, `${stepLabel(index, op)}: ${message}`, { details: { stepIndex: index, op } })
}

function rawOpAt(input: unknown, index: number): string | undefined {
  const steps = (input as { steps?: unknown } | null)?.steps
  const step = Array.isArray(steps) ? (steps[index] as { op?: unknown } | undefined) : undefined
  return typeof step?.op === 'string' ? step.op : undefined
}

/** Turns zod's first issue into a message that names the step and the field. */
function fromZod(input: unknown, error: z.ZodError): HeError {
  const issue = error.issues[0]
  const path = issue?.path ?? []
  const text = issue?.message ?? 'invalid'
  if (path[0] === 'steps' && typeof path[1] === 'number') {
    const index = path[1]
    const op = rawOpAt(input, index)
    const field = path.slice(2).join('.')
    if (op === undefined || !(PROGRAM_OP_NAMES as string[]).includes(op)) {
      const shown = op === undefined ? 'no op' : `unknown op '${op}'`
      return new HeError('INVALID_PROGRAM', `step ${index + 1}: ${shown}; use one of ${PROGRAM_OP_NAMES.join(', ')}`, {
        cause: error,
        details: { stepIndex: index },
      })
    }
    return new HeError('INVALID_PROGRAM', `${stepLabel(index, op)}: ${field ? `${field}: ` : ''}${text}`, {
      cause: error,
      details: { stepIndex: index, op, field },
    })
  }
  const field = path.join('.') || 'program'
  return new HeError('INVALID_PROGRAM', `${field}: ${text}`, { cause: error, details: { field } })
}

/**
 * Validates a program before any SEAL object is touched: its shape (zod), SSA
 * naming (every `out` is new, every operand is defined earlier — so no cycles and
 * no use before definition), operand kinds (ciphertext vs plaintext), outputs, and
 * the limits that do not depend on parameters. Errors are `INVALID_PROGRAM` or
 * `LIMIT_EXCEEDED` naming the step ("step 3 (multiply): operand 'x' is not defined
 * before this step"); steps are counted from 1 in messages, `details.stepIndex` from 0.
 */
export function parseProgram(input: unknown, options: ParseProgramOptions = {}): ParsedProgram {
  const limits = resolveLimits(options.limits)
  const parsed = ProgramSpec.safeParse(input)
  if (!parsed.success) throw fromZod(input, parsed.error)
  const program = parsed.data
  const { inputs, steps, outputs } = program
  const tooMany = (what: string, count: number, max: number) =>
    new HeError('LIMIT_EXCEEDED', `program has ${count} ${what}; the limit is ${max}`, {
      details: { limit: what, count, max },
    })
  if (steps.length > limits.maxSteps) throw tooMany('steps', steps.length, limits.maxSteps)
  if (inputs.length > limits.maxInputs) throw tooMany('inputs', inputs.length, limits.maxInputs)
  if (outputs.length > limits.maxOutputs) throw tooMany('outputs', outputs.length, limits.maxOutputs)

  const kinds = new Map<string, ValueKind>()
  const definedBy = new Map<string, number>()
  for (const [index, input] of inputs.entries()) {
    if (kinds.has(input.name)) {
      throw invalid(`inputs[${index}]: input '${input.name}' is declared twice`, { field: `inputs.${index}` })
    }
    kinds.set(input.name, input.kind)
    definedBy.set(input.name, -1)
  }

  for (const [index, step] of steps.entries()) {
    const fail = (message: string) => stepError(index, step.op, message, 'INVALID_PROGRAM')
    const info = PROGRAM_OPS[step.op]
    const operands = operandsOf(step)
    for (const [position, name] of operands.entries()) {
      const kind = kinds.get(name)
      if (kind === undefined) throw fail(`operand '${name}' is not defined before this step`)
      const wanted = info.operands[position]?.kind
      if (wanted !== undefined && wanted !== 'either' && wanted !== kind) {
        const field = info.operands[position]?.field ?? 'a'
        const hint = kind === 'plaintext' && step.op in PLAIN_VARIANT ? ` (use ${PLAIN_VARIANT[step.op]})` : ''
        throw fail(`operand ${field} = '${name}' is a ${kind}; ${step.op} needs a ${wanted} here${hint}`)
      }
    }
    if (step.op === 'sub' && step.a === step.b) {
      throw fail(`'${step.a}' − '${step.a}' is an encryption of zero with no noise (transparent); SEAL refuses it`)
    }
    if (kinds.has(step.out)) {
      const by = definedBy.get(step.out) ?? -1
      const where = by < 0 ? 'as an input' : `by step ${by + 1}`
      throw fail(`out '${step.out}' is already defined ${where}; every step defines a new name`)
    }
    if (step.op === 'exponentiate' && step.exponent > limits.maxExponent) {
      throw stepError(
        index,
        step.op,
        `exponent ${step.exponent} exceeds the limit ${limits.maxExponent}`,
        'LIMIT_EXCEEDED',
      )
    }
    if ((step.op === 'rotateRows' || step.op === 'rotateVector') && Math.abs(step.steps) > limits.maxRotationSteps) {
      throw stepError(
        index,
        step.op,
        `rotation by ${step.steps} exceeds the limit |steps| ≤ ${limits.maxRotationSteps}`,
        'LIMIT_EXCEEDED',
      )
    }
    const firstKind = kinds.get(step.a) ?? 'ciphertext'
    kinds.set(step.out, outputKindOf(step, firstKind))
    definedBy.set(step.out, index)
  }

  const seen = new Set<string>()
  for (const [index, name] of outputs.entries()) {
    if (!kinds.has(name)) throw invalid(`outputs[${index}]: '${name}' is not defined by any input or step`, { index })
    if (seen.has(name)) throw invalid(`outputs[${index}]: '${name}' is listed twice`, { index })
    seen.add(name)
  }
  return { program, kinds, definedBy }
}

const PLAIN_VARIANT: Partial<Record<string, string>> = {
  add: 'addPlain',
  sub: 'subPlain',
  multiply: 'multiplyPlain',
  innerProduct: 'innerProductPlain',
}

import type { SchemeName } from '../params/ParamsSpec.ts'
import type { TsEmitEnv } from '../program/ops/OpDefinition.ts'
import { definitionOf } from '../program/ops/opTable.ts'
import type { ProgramStep, ValueKind } from '../program/ProgramSpec.ts'
import { PROGRAM_OPS } from '../program/programOps.ts'
import { stepLabel } from '../program/stepLabel.ts'

/** What step emission needs to know. */
export interface EmitContext {
  ts: boolean
  scheme: SchemeName
  /** The JavaScript identifier of a program name. */
  id(name: string): string
  kinds: Readonly<Record<string, ValueKind>>
}

/** Helpers a generated program defines only when a step uses them. */
export type HelperName = 'sumElements' | 'alignCiphertexts' | 'alignPlain'

/** The helpers `step` calls. */
export function helpersOf(step: ProgramStep, scheme: SchemeName): HelperName[] {
  const definition = definitionOf(step)
  const helpers: HelperName[] = []
  if (definition.sumsSlots) helpers.push('sumElements')
  if ('align' in step && step.align) {
    // BFV/BGV plaintexts have no level: sealbox's evaluator leaves plain operands as they are.
    if (!hasPlainOperand(step)) helpers.push('alignCiphertexts')
    else if (scheme === 'ckks') helpers.push('alignPlain')
  }
  return helpers
}

/** The step's second operand is a plaintext. */
export function hasPlainOperand(step: ProgramStep): boolean {
  return definitionOf(step).operands.some((operand) => operand.kind === 'plaintext')
}

/** The op's summary with the step's own names and numbers, e.g. "xy × plaintext w → out (align)". */
function describeStep(step: ProgramStep): string {
  let text = PROGRAM_OPS[step.op].summary.replace(/\ba\b/g, step.a)
  if ('b' in step) text = text.replace(/\bb\b/g, step.b)
  if ('steps' in step) text = text.replace(/\bby steps\b/, `by ${step.steps}`)
  if ('exponent' in step) text = text.replace(/\^exponent\b/, `^${step.exponent}`)
  return `${text} → ${step.out}${'align' in step && step.align ? ' (align)' : ''}`
}

function block(lines: string[]): string[] {
  return ['{', ...lines.map((line) => `  ${line}`), '}']
}

/**
 * The statements of one step, mirroring sealbox's evaluator (`executeStep`): the
 * same SEAL calls, the same rebuilt sumElements, the same `align` behaviour.
 */
export function emitStep(step: ProgramStep, index: number, e: EmitContext): string[] {
  const a = e.id(step.a)
  const out = e.id(step.out)
  const ckks = e.scheme === 'ckks'
  const aligned = 'align' in step && step.align === true
  const plain = hasPlainOperand(step)
  const env: TsEmitEnv = {
    scheme: e.scheme,
    ckks,
    id: e.id,
    kinds: e.kinds,
    a,
    out,
    comment: `// ${stepLabel(index, step.op)}: ${describeStep(step)}`,
    ciphertext: `const ${out} = own(new seal.Ciphertext())`,
    plaintext: `const ${out} = own(new seal.Plaintext())`,
    pair(matchScale) {
      const b = e.id('b' in step ? step.b : step.a)
      if (!aligned || (plain && !ckks)) return { setup: [], x: a, y: b }
      const helper = plain ? 'alignPlain' : 'alignCiphertexts'
      return { setup: [`const [left, right] = ${helper}(${a}, ${b}, ${matchScale})`], x: 'left', y: 'right' }
    },
    withPair: (p, body) => (p.setup.length > 0 ? block([...p.setup, ...body]) : body),
    block,
  }
  return definitionOf(step).emitTs(step, env)
}

import type { SchemeName } from '../../params/ParamsSpec.ts'
import type { ProgramStep, ValueKind } from '../../program/ProgramSpec.ts'
import { stepLabel } from '../../program/programOps.ts'

/** What Python step emission needs to know. */
export interface PythonEmitContext {
  scheme: SchemeName
  /** The Python identifier of a program name. */
  id(name: string): string
  kinds: Readonly<Record<string, ValueKind>>
}

const PLAIN_OPS = new Set(['addPlain', 'subPlain', 'multiplyPlain', 'innerProductPlain'])

/** seal-python's snake_case name of an evaluator method. */
function snake(op: string): string {
  return op.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
}

/**
 * The statements of one step with the seal-python 4.1 API, mirroring sealbox's
 * evaluator (`executeStep`) like the TypeScript emitter's `emitStep` does.
 */
export function emitPythonStep(step: ProgramStep, index: number, e: PythonEmitContext): string[] {
  const a = e.id(step.a)
  const out = e.id(step.out)
  const ckks = e.scheme === 'ckks'
  const lines = [`# ${stepLabel(index, step.op)} → ${step.out}${'align' in step && step.align ? ' (align)' : ''}`]
  const aligned = 'align' in step && step.align === true
  /** Operands after alignment: the names themselves, or `left`/`right`. */
  const pair = (matchScale: boolean): [string, string] => {
    const b = e.id('b' in step ? step.b : step.a)
    const plain = PLAIN_OPS.has(step.op)
    // BFV/BGV plaintexts have no level: sealbox's evaluator leaves plain operands as they are.
    if (!aligned || (plain && !ckks)) return [a, b]
    const helper = plain ? 'align_plain' : 'align_ciphertexts'
    lines.push(`left, right = ${helper}(${a}, ${b}, ${matchScale ? 'True' : 'False'})`)
    return ['left', 'right']
  }

  switch (step.op) {
    case 'add':
    case 'sub':
    case 'multiply':
    case 'addPlain':
    case 'subPlain':
    case 'multiplyPlain': {
      const [x, y] = pair(ckks && step.op !== 'multiply' && step.op !== 'multiplyPlain')
      lines.push(`${out} = evaluator.${snake(step.op)}(${x}, ${y})`)
      return lines
    }
    case 'innerProduct': {
      const [x, y] = pair(false)
      lines.push(`product = evaluator.relinearize(evaluator.multiply(${x}, ${y}), relin_keys)`)
      lines.push(`${out} = sum_elements(product)`)
      return lines
    }
    case 'innerProductPlain': {
      const [x, y] = pair(false)
      lines.push(`${out} = sum_elements(evaluator.multiply_plain(${x}, ${y}))`)
      return lines
    }
    case 'negate':
    case 'square':
    case 'rescaleToNext':
      lines.push(`${out} = evaluator.${snake(step.op)}(${a})`)
      return lines
    case 'relinearize':
      lines.push(`${out} = evaluator.relinearize(${a}, relin_keys)`)
      return lines
    case 'exponentiate':
      lines.push(`${out} = evaluator.exponentiate(${a}, ${step.exponent}, relin_keys)`)
      return lines
    case 'modSwitchToNext':
      lines.push(`${out} = evaluator.mod_switch_to_next(${a})`)
      return lines
    case 'modSwitchToLast':
      lines.push(`${out} = evaluator.mod_switch_to(${a}, context.last_parms_id())`)
      return lines
    case 'rotateRows':
    case 'rotateVector':
      lines.push(`${out} = evaluator.${snake(step.op)}(${a}, ${step.steps}, galois_keys)`)
      return lines
    case 'rotateColumns':
    case 'complexConjugate':
      lines.push(`${out} = evaluator.${snake(step.op)}(${a}, galois_keys)`)
      return lines
    case 'sumElements':
      lines.push(`${out} = sum_elements(${a})`)
      return lines
    default: {
      const never: never = step
      throw new Error(`unknown op ${JSON.stringify(never)}`)
    }
  }
}

/** Whether a step needs `sum_elements`, `align_ciphertexts` or `align_plain`. */
export function pythonHelpersOf(step: ProgramStep, scheme: SchemeName): Array<'sum' | 'alignCipher' | 'alignPlain'> {
  const helpers: Array<'sum' | 'alignCipher' | 'alignPlain'> = []
  if (step.op === 'sumElements' || step.op === 'innerProduct' || step.op === 'innerProductPlain') helpers.push('sum')
  if ('align' in step && step.align) {
    if (!PLAIN_OPS.has(step.op)) helpers.push('alignCipher')
    else if (scheme === 'ckks') helpers.push('alignPlain')
  }
  return helpers
}

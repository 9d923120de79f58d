import type { SchemeName } from '../../params/ParamsSpec.ts'
import type { PyEmitEnv } from '../../program/ops/OpDefinition.ts'
import { definitionOf } from '../../program/ops/opTable.ts'
import type { ProgramStep, ValueKind } from '../../program/ProgramSpec.ts'
import { stepLabel } from '../../program/stepLabel.ts'
import { hasPlainOperand } from '../emitStep.ts'

/** What Python step emission needs to know. */
export interface PythonEmitContext {
  scheme: SchemeName
  /** The Python identifier of a program name. */
  id(name: string): string
  kinds: Readonly<Record<string, ValueKind>>
}

/**
 * The statements of one step with the seal-python 4.1 API, mirroring sealbox's
 * evaluator (`executeStep`) like the TypeScript emitter's `emitStep` does.
 */
export function emitPythonStep(step: ProgramStep, index: number, e: PythonEmitContext): string[] {
  const a = e.id(step.a)
  const ckks = e.scheme === 'ckks'
  const aligned = 'align' in step && step.align === true
  const plain = hasPlainOperand(step)
  const env: PyEmitEnv = {
    scheme: e.scheme,
    ckks,
    id: e.id,
    kinds: e.kinds,
    a,
    out: e.id(step.out),
    comment: `# ${stepLabel(index, step.op)} → ${step.out}${aligned ? ' (align)' : ''}`,
    pair(matchScale) {
      const b = e.id('b' in step ? step.b : step.a)
      // BFV/BGV plaintexts have no level: sealbox's evaluator leaves plain operands as they are.
      if (!aligned || (plain && !ckks)) return { setup: [], x: a, y: b }
      const helper = plain ? 'align_plain' : 'align_ciphertexts'
      return { setup: [`left, right = ${helper}(${a}, ${b}, ${matchScale ? 'True' : 'False'})`], x: 'left', y: 'right' }
    },
  }
  return definitionOf(step).emitPy(step, env)
}

/** Whether a step needs `sum_elements`, `align_ciphertexts` or `align_plain`. */
export function pythonHelpersOf(step: ProgramStep, scheme: SchemeName): Array<'sum' | 'alignCipher' | 'alignPlain'> {
  const helpers: Array<'sum' | 'alignCipher' | 'alignPlain'> = []
  if (definitionOf(step).sumsSlots) helpers.push('sum')
  if ('align' in step && step.align) {
    if (!hasPlainOperand(step)) helpers.push('alignCipher')
    else if (scheme === 'ckks') helpers.push('alignPlain')
  }
  return helpers
}

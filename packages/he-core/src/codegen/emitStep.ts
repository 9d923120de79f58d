import type { SchemeName } from '../params/ParamsSpec.ts'
import type { ProgramStep, ValueKind } from '../program/ProgramSpec.ts'
import { PROGRAM_OPS, stepLabel } from '../program/programOps.ts'

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
  const helpers: HelperName[] = []
  if (step.op === 'sumElements' || step.op === 'innerProduct' || step.op === 'innerProductPlain') {
    helpers.push('sumElements')
  }
  if ('align' in step && step.align) {
    const plain =
      step.op === 'addPlain' || step.op === 'subPlain' || step.op === 'multiplyPlain' || step.op === 'innerProductPlain'
    // BFV/BGV plaintexts have no level: sealbox's evaluator leaves plain operands as they are.
    if (!plain) helpers.push('alignCiphertexts')
    else if (scheme === 'ckks') helpers.push('alignPlain')
  }
  return helpers
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
  const comment = `// ${stepLabel(index, step.op)}: ${describeStep(step)}`
  const ciphertext = `const ${out} = own(new seal.Ciphertext())`
  const plaintext = `const ${out} = own(new seal.Plaintext())`
  const ckks = e.scheme === 'ckks'
  const aligned = 'align' in step && step.align === true
  /** Operands after alignment: either the names themselves, or `left`/`right` inside a block. */
  const pair = (kind: 'ciphertexts' | 'plain', matchScale: boolean): { setup: string[]; x: string; y: string } => {
    const b = e.id('b' in step ? step.b : step.a)
    if (!aligned || (kind === 'plain' && !ckks)) return { setup: [], x: a, y: b }
    const helper = kind === 'plain' ? 'alignPlain' : 'alignCiphertexts'
    return { setup: [`const [left, right] = ${helper}(${a}, ${b}, ${matchScale})`], x: 'left', y: 'right' }
  }
  const withPair = (p: { setup: string[] }, body: string[]) =>
    p.setup.length > 0 ? block([...p.setup, ...body]) : body

  switch (step.op) {
    case 'add':
    case 'sub':
    case 'multiply': {
      const p = pair('ciphertexts', ckks && step.op !== 'multiply')
      return [comment, ciphertext, ...withPair(p, [`evaluator.${step.op}(${p.x}, ${p.y}, ${out})`])]
    }
    case 'addPlain':
    case 'subPlain':
    case 'multiplyPlain': {
      const p = pair('plain', step.op !== 'multiplyPlain')
      return [comment, ciphertext, ...withPair(p, [`evaluator.${step.op}(${p.x}, ${p.y}, ${out})`])]
    }
    case 'innerProduct': {
      const p = pair('ciphertexts', false)
      return [
        comment,
        ciphertext,
        ...block([
          ...p.setup,
          'const product = own(new seal.Ciphertext())',
          `evaluator.multiply(${p.x}, ${p.y}, product)`,
          'evaluator.relinearizeInplace(product, relinKeys)',
          `sumElements(product, ${out})`,
        ]),
      ]
    }
    case 'innerProductPlain': {
      const p = pair('plain', false)
      return [
        comment,
        ciphertext,
        ...block([
          ...p.setup,
          'const product = own(new seal.Ciphertext())',
          `evaluator.multiplyPlain(${p.x}, ${p.y}, product)`,
          `sumElements(product, ${out})`,
        ]),
      ]
    }
    case 'negate':
    case 'square':
    case 'rescaleToNext':
      return [comment, ciphertext, `evaluator.${step.op}(${a}, ${out})`]
    case 'relinearize':
      return [comment, ciphertext, `evaluator.relinearize(${a}, relinKeys, ${out})`]
    case 'exponentiate':
      return [comment, ciphertext, `evaluator.exponentiate(${a}, ${step.exponent}n, relinKeys, ${out})`]
    case 'modSwitchToNext':
      return e.kinds[step.a] === 'plaintext'
        ? [comment, plaintext, `evaluator.plainModSwitchToNext(${a}, ${out})`]
        : [comment, ciphertext, `evaluator.cipherModSwitchToNext(${a}, ${out})`]
    case 'modSwitchToLast': {
      const isPlain = e.kinds[step.a] === 'plaintext'
      return [
        comment,
        isPlain ? plaintext : ciphertext,
        ...block([
          'const lastLevel = own(context.lastParmsId())',
          `evaluator.${isPlain ? 'plainModSwitchTo' : 'cipherModSwitchTo'}(${a}, lastLevel, ${out})`,
        ]),
      ]
    }
    case 'rotateRows':
    case 'rotateVector':
      return [comment, ciphertext, `evaluator.${step.op}(${a}, ${step.steps}, galoisKeys, ${out})`]
    case 'rotateColumns':
    case 'complexConjugate':
      return [comment, ciphertext, `evaluator.${step.op}(${a}, galoisKeys, ${out})`]
    case 'sumElements':
      return [comment, ciphertext, `sumElements(${a}, ${out})`]
    default: {
      const never: never = step
      throw new Error(`unknown op ${JSON.stringify(never)}`)
    }
  }
}

import type { SchemeName } from '../params/ParamsSpec.ts'
import type { ProgramOp, ProgramStep, ValueKind } from './ProgramSpec.ts'

/** What an operand must be: a ciphertext, a plaintext, or either (mod switching). */
export type OperandKind = ValueKind | 'either'

/** Static facts about one op: operands, schemes, keys. Drives validation, analysis, the UI and codegen. */
export interface ProgramOpInfo {
  /** Operand fields in order, with the kind each must be. */
  operands: ReadonlyArray<{ field: 'a' | 'b'; kind: OperandKind }>
  schemes: readonly SchemeName[]
  /** Needs relinearization keys. */
  relin: boolean
  /** Accepts `align: true`. */
  alignable: boolean
  /**
   * One line for people (UI tooltips, generated-code comments). `a` and `b` stand for
   * the operands (codegen substitutes the names), so no English article "a" here.
   */
  summary: string
}

const ALL: readonly SchemeName[] = ['bfv', 'bgv', 'ckks']
const BATCHED: readonly SchemeName[] = ['bfv', 'bgv']
const CKKS: readonly SchemeName[] = ['ckks']
const ct = { field: 'a', kind: 'ciphertext' } as const
const ct2 = { field: 'b', kind: 'ciphertext' } as const
const pt2 = { field: 'b', kind: 'plaintext' } as const

function info(
  operands: ProgramOpInfo['operands'],
  schemes: readonly SchemeName[],
  summary: string,
  extra: Partial<Pick<ProgramOpInfo, 'relin' | 'alignable'>> = {},
): ProgramOpInfo {
  return { operands, schemes, summary, relin: extra.relin ?? false, alignable: extra.alignable ?? false }
}

/** Every op of the program format with its static facts. */
export const PROGRAM_OPS: Readonly<Record<ProgramOp, ProgramOpInfo>> = {
  add: info([ct, ct2], ALL, 'a + b', { alignable: true }),
  sub: info([ct, ct2], ALL, 'a − b', { alignable: true }),
  negate: info([ct], ALL, '−a'),
  multiply: info([ct, ct2], ALL, 'a × b (size 3: relinearize next)', { alignable: true }),
  square: info([ct], ALL, 'a² (size 3: relinearize next)'),
  exponentiate: info([ct], BATCHED, 'a^exponent, relinearizing after each multiplication', { relin: true }),
  addPlain: info([ct, pt2], ALL, 'a + plaintext b', { alignable: true }),
  subPlain: info([ct, pt2], ALL, 'a − plaintext b', { alignable: true }),
  multiplyPlain: info([ct, pt2], ALL, 'a × plaintext b', { alignable: true }),
  relinearize: info([ct], ALL, 'a back to size 2 (relinearization keys)', { relin: true }),
  rescaleToNext: info([ct], CKKS, 'a divided by its last prime: scale and level drop by one'),
  modSwitchToNext: info([{ field: 'a', kind: 'either' }], ALL, 'a one level down (one prime dropped, no rescaling)'),
  modSwitchToLast: info([{ field: 'a', kind: 'either' }], ALL, 'a at the last level (smallest ciphertext)'),
  rotateRows: info([ct], BATCHED, 'a with both batching rows rotated left by steps (negative: right)'),
  rotateColumns: info([ct], BATCHED, 'a with its two batching rows swapped'),
  rotateVector: info([ct], CKKS, 'a with its slots rotated left by steps (negative: right)'),
  complexConjugate: info([ct], CKKS, 'a with every slot complex-conjugated'),
  sumElements: info([ct], ALL, 'every slot becomes the sum of all slots of a'),
  innerProduct: info([ct, ct2], ALL, 'every slot becomes Σ aᵢbᵢ (multiply, relinearize, sum)', {
    relin: true,
    alignable: true,
  }),
  innerProductPlain: info([ct, pt2], ALL, 'every slot becomes Σ aᵢbᵢ for plaintext b (multiplyPlain, sum)', {
    alignable: true,
  }),
}

/** The op names in the order of the table (for menus). */
export const PROGRAM_OP_NAMES = Object.keys(PROGRAM_OPS) as ProgramOp[]

/** The operand names a step reads, in order. */
export function operandsOf(step: ProgramStep): string[] {
  return 'b' in step ? [step.a, step.b] : [step.a]
}

/** The kind of value a step produces, given the kind of its first operand. */
export function outputKindOf(step: ProgramStep, kindOfA: ValueKind): ValueKind {
  return step.op === 'modSwitchToNext' || step.op === 'modSwitchToLast' ? kindOfA : 'ciphertext'
}

/** "step 3 (multiply)": how messages name a step (1-based, as people count). */
export function stepLabel(index: number, op: string): string {
  return `step ${index + 1} (${op})`
}

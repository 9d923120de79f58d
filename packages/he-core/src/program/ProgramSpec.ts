import { z } from 'zod'

/**
 * A value name in a program: an input or the `out` of a step. Names are also used
 * as identifiers in generated code, so they are identifier-shaped.
 */
export const ValueName = z
  .string()
  .max(64, 'names are at most 64 characters')
  .regex(/^[A-Za-z][A-Za-z0-9_]*$/, 'names start with a letter and contain only letters, digits and _')

/** What a program value is: an encrypted vector or an encoded (public) one. */
export const ValueKind = z.enum(['ciphertext', 'plaintext'])
export type ValueKind = z.infer<typeof ValueKind>

/** One named input of a program. */
export const ProgramInputSpec = z.object({ name: ValueName, kind: ValueKind }).strict()
export type ProgramInputSpec = z.infer<typeof ProgramInputSpec>

/**
 * `align: true` on a two-operand step lets the evaluator mod-switch the operand at
 * the higher level down to the other's level and, for CKKS, treat scales that differ
 * only by rescaling round-off (relative 1e-5) as equal. Without it, mismatches are
 * errors: alignment costs precision and noise budget, so it must be asked for.
 */
const align = z.boolean().optional()

const unary = <Op extends string>(op: Op) => z.object({ op: z.literal(op), a: ValueName, out: ValueName }).strict()
const binary = <Op extends string>(op: Op) =>
  z.object({ op: z.literal(op), a: ValueName, b: ValueName, out: ValueName, align }).strict()
const rotation = <Op extends string>(op: Op) =>
  z.object({ op: z.literal(op), a: ValueName, steps: z.number().int(), out: ValueName }).strict()

/** ct + ct */
export const AddStep = binary('add')
/** ct − ct */
export const SubStep = binary('sub')
/** −ct */
export const NegateStep = unary('negate')
/** ct × ct (size grows to 3: relinearize next) */
export const MultiplyStep = binary('multiply')
/** ct² */
export const SquareStep = unary('square')
/** ct^exponent with relinearization after each multiplication (BFV/BGV) */
export const ExponentiateStep = z
  .object({ op: z.literal('exponentiate'), a: ValueName, exponent: z.number().int().min(1), out: ValueName })
  .strict()
/** ct + pt */
export const AddPlainStep = binary('addPlain')
/** ct − pt */
export const SubPlainStep = binary('subPlain')
/** ct × pt */
export const MultiplyPlainStep = binary('multiplyPlain')
/** Back to size 2 with the relinearization keys. */
export const RelinearizeStep = unary('relinearize')
/** CKKS: divide by the last prime of the level (scale and level drop). */
export const RescaleToNextStep = unary('rescaleToNext')
/** Drop one prime without rescaling (a ciphertext, or a CKKS plaintext). */
export const ModSwitchToNextStep = unary('modSwitchToNext')
/** Drop to the last level (smallest ciphertext to send back). */
export const ModSwitchToLastStep = unary('modSwitchToLast')
/** BFV/BGV: rotate both rows of the 2 × n/2 batching matrix left by `steps` (negative: right). */
export const RotateRowsStep = rotation('rotateRows')
/** BFV/BGV: swap the two rows. */
export const RotateColumnsStep = unary('rotateColumns')
/** CKKS: rotate the slot vector left by `steps` (negative: right). */
export const RotateVectorStep = rotation('rotateVector')
/** CKKS: complex conjugate of every slot. */
export const ComplexConjugateStep = unary('complexConjugate')
/** Every slot becomes the sum of all slots (rotations and additions; rebuilt, node-seal 7 dropped it). */
export const SumElementsStep = unary('sumElements')
/** Every slot becomes Σ aᵢbᵢ: multiply, relinearize, sumElements. */
export const InnerProductStep = binary('innerProduct')
/** Every slot becomes Σ aᵢpᵢ for a plaintext p: multiplyPlain, sumElements. */
export const InnerProductPlainStep = binary('innerProductPlain')

/** One step of a program, discriminated on `op`. */
export const ProgramStep = z.discriminatedUnion('op', [
  AddStep,
  SubStep,
  NegateStep,
  MultiplyStep,
  SquareStep,
  ExponentiateStep,
  AddPlainStep,
  SubPlainStep,
  MultiplyPlainStep,
  RelinearizeStep,
  RescaleToNextStep,
  ModSwitchToNextStep,
  ModSwitchToLastStep,
  RotateRowsStep,
  RotateColumnsStep,
  RotateVectorStep,
  ComplexConjugateStep,
  SumElementsStep,
  InnerProductStep,
  InnerProductPlainStep,
])
export type ProgramStep = z.infer<typeof ProgramStep>
export type ProgramOp = ProgramStep['op']
/** The step type of one op, e.g. `StepOf<'rotateRows'>`. */
export type StepOf<Op extends ProgramOp> = Extract<ProgramStep, { op: Op }>

/**
 * An HE program as JSON: named inputs, steps in order (each defining a new name —
 * SSA, so no cycles and no use before definition), and the names handed back.
 * Structural rules beyond the shape are checked by `parseProgram`.
 */
export const ProgramSpec = z
  .object({
    version: z.literal(1),
    inputs: z.array(ProgramInputSpec),
    steps: z.array(ProgramStep),
    outputs: z.array(ValueName).min(1, 'a program needs at least one output'),
  })
  .strict()
export type ProgramSpec = z.infer<typeof ProgramSpec>
/** What callers write (same as the parsed form: there are no defaults). */
export type ProgramInput = z.input<typeof ProgramSpec>

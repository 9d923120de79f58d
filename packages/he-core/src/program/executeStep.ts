import type { Ciphertext, GaloisKeys, RelinKeys } from 'node-seal/throws'
import { sealCall } from '../errors/toHeError.ts'
import type { ExecuteEnv, ProgramValue, StepKeys } from './ops/OpDefinition.ts'
import { definitionOf } from './ops/opTable.ts'
import type { ProgramStep } from './ProgramSpec.ts'
import { stepLabel } from './stepLabel.ts'
import { type StepFrame, stepError } from './stepOperands.ts'

export type { ProgramValue, StepKeys } from './ops/OpDefinition.ts'

/**
 * Runs one validated step: its op's definition checks the runtime preconditions
 * (levels, scales, sizes) before SEAL sees the operands, then calls the evaluator
 * into a new object owned by `frame.scope`. Every SEAL error is wrapped to name the step.
 */
export function executeStep(
  frame: StepFrame,
  step: ProgramStep,
  lookup: (name: string) => ProgramValue,
  keys: StepKeys,
): ProgramValue {
  const { ctx, scope } = frame
  const label = stepLabel(frame.index, frame.op)
  const env: ExecuteEnv = {
    frame,
    ctx,
    scope,
    label,
    keys,
    lookup,
    cipher(name) {
      const v = lookup(name)
      if (v.kind !== 'ciphertext') throw stepError(frame, 'INVALID_PROGRAM', `'${name}' is not a ciphertext`)
      return { name, value: v.value }
    },
    plain(name) {
      const v = lookup(name)
      if (v.kind !== 'plaintext') throw stepError(frame, 'INVALID_PROGRAM', `'${name}' is not a plaintext`)
      return { name, value: v.value }
    },
    out: (): Ciphertext => scope.track(new ctx.seal.Ciphertext()),
    call: (fn) => sealCall(label, fn),
    relinKeys: () => keys.relinKeys as RelinKeys,
    galoisKeys: () => keys.galoisKeys as GaloisKeys,
  }
  return definitionOf(step).execute(step, env)
}

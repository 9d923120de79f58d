import type { Ciphertext, Plaintext } from 'node-seal/throws'
import type { StepOf } from '../ProgramSpec.ts'
import {
  alignCiphertexts,
  alignPlaintext,
  levelOf,
  requireProductScale,
  requireSize2,
  stepError,
} from '../stepOperands.ts'
import type { ExecuteEnv, ProgramValue } from './OpDefinition.ts'

/*
 * Evaluator pieces several op definitions share: the two-operand shapes with
 * `align`, and dropping a level.
 */

/** A ciphertext result. */
export function cipherValue(value: Ciphertext): ProgramValue {
  return { kind: 'ciphertext', value }
}

/** ct ∘ ct into a new ciphertext, operands aligned when the step asks (`sameScale`: CKKS scales must match). */
export function cipherPair(
  step: StepOf<'add' | 'sub' | 'multiply' | 'innerProduct'>,
  env: ExecuteEnv,
  sameScale: boolean,
): [Ciphertext, Ciphertext, ReturnType<typeof levelOf>] {
  return alignCiphertexts(env.frame, env.cipher(step.a), env.cipher(step.b), { align: step.align === true, sameScale })
}

/** ct ∘ pt, the plaintext aligned to the ciphertext's level when the step asks. */
export function plainPair(
  step: StepOf<'addPlain' | 'subPlain'>,
  env: ExecuteEnv,
): [Ciphertext, Plaintext, ReturnType<typeof levelOf>] {
  return alignPlaintext(env.frame, env.cipher(step.a), env.plain(step.b), {
    align: step.align === true,
    sameScale: true,
  })
}

/** ct × pt operands: the plaintext must not be zero and the product's scale must fit (`size2`: the ciphertext must be size 2). */
export function productWithPlain(
  step: StepOf<'multiplyPlain' | 'innerProductPlain'>,
  env: ExecuteEnv,
  options: { size2: boolean },
): [Ciphertext, Plaintext] {
  const b = env.plain(step.b)
  if (b.value.isZero()) {
    throw stepError(
      env.frame,
      'INVALID_INPUT',
      `plaintext '${b.name}' is all zeros; the product would be a transparent (unencrypted) zero, which SEAL refuses`,
    )
  }
  const a = env.cipher(step.a)
  if (options.size2) requireSize2(env.frame, a)
  const [x, p, level] = alignPlaintext(env.frame, a, b, { align: step.align === true, sameScale: false })
  requireProductScale(env.frame, level, x.scale(), p.scale())
  return [x, p]
}

/** One level down: a rescale (CKKS) or a mod switch, of a ciphertext or (mod switch) a CKKS plaintext. */
export function levelDown(step: StepOf<'rescaleToNext' | 'modSwitchToNext'>, env: ExecuteEnv): ProgramValue {
  const { ctx, scope } = env
  const ev = ctx.evaluator
  const source = env.lookup(step.a)
  const level = levelOf(env.frame, source.value, step.a)
  if (level.chainIndex === 0) {
    throw stepError(
      env.frame,
      'LEVEL_MISMATCH',
      `'${step.a}' is already at the last level (0); there is no prime left to ${step.op === 'rescaleToNext' ? 'rescale by' : 'drop'}`,
    )
  }
  if (source.kind === 'plaintext') {
    const d = scope.track(new ctx.seal.Plaintext())
    env.call(() => ev.plainModSwitchToNext(source.value, d))
    return { kind: 'plaintext', value: d }
  }
  const d = env.out()
  env.call(() =>
    step.op === 'rescaleToNext' ? ev.rescaleToNext(source.value, d) : ev.cipherModSwitchToNext(source.value, d),
  )
  return cipherValue(d)
}

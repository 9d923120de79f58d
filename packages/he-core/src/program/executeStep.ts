import type { Ciphertext, GaloisKeys, Plaintext, RelinKeys } from 'node-seal/throws'
import { sealCall } from '../errors/toHeError.ts'
import type { ProgramStep } from './ProgramSpec.ts'
import { stepLabel } from './programOps.ts'
import {
  alignCiphertexts,
  alignPlaintext,
  levelOf,
  type NamedCiphertext,
  type NamedPlaintext,
  requireProductScale,
  requireRelinPowers,
  requireSize2,
  type StepFrame,
  stepError,
} from './stepOperands.ts'
import { sumElementsInto } from './sumElements.ts'

/** A value of a running program. */
export type ProgramValue = { kind: 'ciphertext'; value: Ciphertext } | { kind: 'plaintext'; value: Plaintext }

/** Keys the steps use; presence was checked before the run (`checkProgramKeys`). */
export interface StepKeys {
  relinKeys?: RelinKeys | undefined
  galoisKeys?: GaloisKeys | undefined
}

/**
 * Runs one validated step: checks its runtime preconditions (levels, scales,
 * sizes) before SEAL sees the operands, then calls the evaluator into a new
 * object owned by `frame.scope`. Every SEAL error is wrapped to name the step.
 */
export function executeStep(
  frame: StepFrame,
  step: ProgramStep,
  lookup: (name: string) => ProgramValue,
  keys: StepKeys,
): ProgramValue {
  const { ctx, scope } = frame
  const ev = ctx.evaluator
  const label = stepLabel(frame.index, frame.op)
  const call = (fn: () => void) => sealCall(label, fn)
  const out = (): Ciphertext => scope.track(new ctx.seal.Ciphertext())
  const cipher = (name: string): NamedCiphertext => {
    const v = lookup(name)
    if (v.kind !== 'ciphertext') throw stepError(frame, 'INVALID_PROGRAM', `'${name}' is not a ciphertext`)
    return { name, value: v.value }
  }
  const plain = (name: string): NamedPlaintext => {
    const v = lookup(name)
    if (v.kind !== 'plaintext') throw stepError(frame, 'INVALID_PROGRAM', `'${name}' is not a plaintext`)
    return { name, value: v.value }
  }
  const ct = (value: Ciphertext): ProgramValue => ({ kind: 'ciphertext', value })
  const rk = () => keys.relinKeys as RelinKeys
  const gk = () => keys.galoisKeys as GaloisKeys
  const notZero = (p: NamedPlaintext) => {
    if (p.value.isZero()) {
      throw stepError(
        frame,
        'INVALID_INPUT',
        `plaintext '${p.name}' is all zeros; the product would be a transparent (unencrypted) zero, which SEAL refuses`,
      )
    }
  }

  switch (step.op) {
    case 'add':
    case 'sub': {
      const [x, y] = alignCiphertexts(frame, cipher(step.a), cipher(step.b), {
        align: step.align === true,
        sameScale: true,
      })
      const d = out()
      call(() => (step.op === 'add' ? ev.add(x, y, d) : ev.sub(x, y, d)))
      return ct(d)
    }
    case 'multiply':
    case 'innerProduct': {
      const [x, y, level] = alignCiphertexts(frame, cipher(step.a), cipher(step.b), {
        align: step.align === true,
        sameScale: false,
      })
      requireProductScale(frame, level, x.scale(), y.scale())
      if (step.op === 'multiply') {
        const d = out()
        call(() => ev.multiply(x, y, d))
        return ct(d)
      }
      requireRelinPowers(frame, keys.relinKeys, step.out, x.size() + y.size() - 1)
      const product = scope.track(new ctx.seal.Ciphertext())
      frame.temporaries.push(product)
      call(() => {
        ev.multiply(x, y, product)
        ev.relinearizeInplace(product, rk())
      })
      const d = out()
      sumElementsInto(ctx, product, gk(), d, label)
      return ct(d)
    }
    case 'negate': {
      const d = out()
      call(() => ev.negate(cipher(step.a).value, d))
      return ct(d)
    }
    case 'square': {
      const a = cipher(step.a)
      requireProductScale(frame, levelOf(frame, a.value, a.name), a.value.scale(), a.value.scale())
      const d = out()
      call(() => ev.square(a.value, d))
      return ct(d)
    }
    case 'exponentiate': {
      const a = cipher(step.a)
      requireSize2(frame, a)
      const d = out()
      call(() => ev.exponentiate(a.value, BigInt(step.exponent), rk(), d))
      return ct(d)
    }
    case 'addPlain':
    case 'subPlain': {
      const [x, p] = alignPlaintext(frame, cipher(step.a), plain(step.b), {
        align: step.align === true,
        sameScale: true,
      })
      const d = out()
      call(() => (step.op === 'addPlain' ? ev.addPlain(x, p, d) : ev.subPlain(x, p, d)))
      return ct(d)
    }
    case 'multiplyPlain':
    case 'innerProductPlain': {
      const b = plain(step.b)
      notZero(b)
      const a = cipher(step.a)
      if (step.op === 'innerProductPlain') requireSize2(frame, a)
      const [x, p, level] = alignPlaintext(frame, a, b, { align: step.align === true, sameScale: false })
      requireProductScale(frame, level, x.scale(), p.scale())
      if (step.op === 'multiplyPlain') {
        const d = out()
        call(() => ev.multiplyPlain(x, p, d))
        return ct(d)
      }
      const product = scope.track(new ctx.seal.Ciphertext())
      frame.temporaries.push(product)
      call(() => ev.multiplyPlain(x, p, product))
      const d = out()
      sumElementsInto(ctx, product, gk(), d, label)
      return ct(d)
    }
    case 'relinearize': {
      const a = cipher(step.a)
      requireRelinPowers(frame, keys.relinKeys, a.name, a.value.size())
      const d = out()
      call(() => ev.relinearize(a.value, rk(), d))
      return ct(d)
    }
    case 'rescaleToNext':
    case 'modSwitchToNext': {
      const source = lookup(step.a)
      const level = levelOf(frame, source.value, step.a)
      if (level.chainIndex === 0) {
        throw stepError(
          frame,
          'LEVEL_MISMATCH',
          `'${step.a}' is already at the last level (0); there is no prime left to ${step.op === 'rescaleToNext' ? 'rescale by' : 'drop'}`,
        )
      }
      if (source.kind === 'plaintext') {
        const d = scope.track(new ctx.seal.Plaintext())
        call(() => ev.plainModSwitchToNext(source.value, d))
        return { kind: 'plaintext', value: d }
      }
      const d = out()
      call(() =>
        step.op === 'rescaleToNext' ? ev.rescaleToNext(source.value, d) : ev.cipherModSwitchToNext(source.value, d),
      )
      return ct(d)
    }
    case 'modSwitchToLast': {
      const source = lookup(step.a)
      levelOf(frame, source.value, step.a)
      const last = ctx.context.lastParmsId()
      try {
        if (source.kind === 'plaintext') {
          const d = scope.track(new ctx.seal.Plaintext())
          call(() => ev.plainModSwitchTo(source.value, last, d))
          return { kind: 'plaintext', value: d }
        }
        const d = out()
        call(() => ev.cipherModSwitchTo(source.value, last, d))
        return ct(d)
      } finally {
        last.delete()
      }
    }
    case 'rotateRows':
    case 'rotateVector': {
      const a = cipher(step.a)
      requireSize2(frame, a)
      const d = out()
      call(() =>
        step.op === 'rotateRows'
          ? ev.rotateRows(a.value, step.steps, gk(), d)
          : ev.rotateVector(a.value, step.steps, gk(), d),
      )
      return ct(d)
    }
    case 'rotateColumns':
    case 'complexConjugate': {
      const a = cipher(step.a)
      requireSize2(frame, a)
      const d = out()
      call(() =>
        step.op === 'rotateColumns' ? ev.rotateColumns(a.value, gk(), d) : ev.complexConjugate(a.value, gk(), d),
      )
      return ct(d)
    }
    case 'sumElements': {
      const a = cipher(step.a)
      requireSize2(frame, a)
      const d = out()
      sumElementsInto(ctx, a.value, gk(), d, label)
      return ct(d)
    }
    default: {
      const never: never = step
      throw stepError(frame, 'INVALID_PROGRAM', `unknown op ${JSON.stringify(never)}`)
    }
  }
}

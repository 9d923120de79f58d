import type { Ciphertext, Plaintext, RelinKeys } from 'node-seal/throws'
import { HeError } from '../errors/HeError.ts'
import type { HeErrorCode } from '../errors/heErrorCodes.ts'
import { sealCall } from '../errors/toHeError.ts'
import type { HeContext } from '../params/HeContext.ts'
import { type ChainLevel, chainLevelOf } from '../params/levelTable.ts'
import type { SealScope } from '../scope/SealScope.ts'
import { deleteSealObject } from '../seal/sealOutOfMemory.ts'
import type { ProgramOp } from './ProgramSpec.ts'
import { stepLabel } from './stepLabel.ts'

/** Scales closer than this (relative) count as equal under `align: true`: what rescaling by a prime ≠ 2^k leaves. */
export const ALIGN_SCALE_TOLERANCE = 1e-5

/** A named operand of a step. */
export interface NamedCiphertext {
  name: string
  value: Ciphertext
}
export interface NamedPlaintext {
  name: string
  value: Plaintext
}

/** What the checks of one step need: where errors point, and where temporary copies live. */
export interface StepFrame {
  ctx: HeContext
  scope: SealScope
  index: number
  op: ProgramOp
  /** Temporary objects of this step (aligned copies), freed when the step ends. */
  temporaries: Array<Ciphertext | Plaintext>
}

/** An `HeError` naming the step. */
export function stepError(
  frame: StepFrame,
  code: HeErrorCode,
  message: string,
  details: Record<string, unknown> = {},
): HeError {
  return new HeError(code, `${stepLabel(frame.index, frame.op)}: ${message}`, {
    details: { stepIndex: frame.index, op: frame.op, ...details },
  })
}

/** SEAL's `are_close`: equal up to one ulp of the larger value. */
export function sameScale(x: number, y: number): boolean {
  return Math.abs(x - y) < Number.EPSILON * Math.max(1, Math.abs(x), Math.abs(y))
}

function closeScale(x: number, y: number): boolean {
  return Math.abs(x - y) <= ALIGN_SCALE_TOLERANCE * Math.max(Math.abs(x), Math.abs(y))
}

/** "2^40", or "2^40.0000002" after a rescale by a prime that is not exactly 2^40. */
function log2(scale: number): string {
  return `2^${Number(Math.log2(scale).toFixed(7))}`
}

/** The level of an object the program already validated (inputs are checked up front). */
export function levelOf(frame: StepFrame, object: Ciphertext | Plaintext, name: string): ChainLevel {
  const level = chainLevelOf(frame.ctx, object)
  if (!level) throw stepError(frame, 'PARAMS_MISMATCH', `'${name}' is not at any level of these parameters`)
  return level
}

/** Rotations and key switching work on size-2 ciphertexts only. */
export function requireSize2(frame: StepFrame, operand: NamedCiphertext): void {
  const size = operand.value.size()
  if (size !== 2) {
    throw stepError(
      frame,
      'INVALID_PROGRAM',
      `'${operand.name}' has size ${size}; ${frame.op} needs size 2, so relinearize it first`,
      { size },
    )
  }
}

/** Relinearizing size k needs keys for the secret-key powers 2 … k − 1 (`createRelinKeys` gives power 2). */
export function requireRelinPowers(frame: StepFrame, relinKeys: RelinKeys | undefined, name: string, size: number) {
  for (let power = 2; power < size; power++) {
    if (!relinKeys?.hasKey(power)) {
      throw stepError(
        frame,
        'MISSING_KEY',
        `'${name}' has size ${size}; the relinearization keys only reach size ${power}. Relinearize after each multiplication`,
        { size },
      )
    }
  }
}

/** CKKS: a product's scale must stay below the bits of the level, or SEAL says "scale out of bounds". */
export function requireProductScale(frame: StepFrame, level: ChainLevel, x: number, y: number): void {
  if (frame.ctx.scheme !== 'ckks') return
  const bits = Math.floor(Math.log2(x) + Math.log2(y))
  if (bits >= level.totalBits) {
    throw stepError(
      frame,
      'SCALE_MISMATCH',
      level.chainIndex === 0
        ? // At the last level there is no prime left to rescale by: advise what can be done.
          `the product would have scale ${log2(x * y)}, but level 0 (the last level) holds only ${level.totalBits} bits and nothing is left to rescale by; use a longer modulus chain (more primes) or fewer multiplications in a row`
        : `the product would have scale ${log2(x * y)}, but level ${level.chainIndex} holds only ${level.totalBits} bits; rescaleToNext the operands first`,
      { reason: 'scale-out-of-bounds', scaleBits: bits, levelBits: level.totalBits },
    )
  }
}

function switchedCopy(frame: StepFrame, operand: NamedCiphertext, target: Ciphertext | Plaintext): Ciphertext {
  const { ctx } = frame
  const copy = frame.scope.track(new ctx.seal.Ciphertext())
  frame.temporaries.push(copy)
  const parmsId = target.parmsId()
  try {
    sealCall(stepLabel(frame.index, frame.op), () => ctx.evaluator.cipherModSwitchTo(operand.value, parmsId, copy))
  } finally {
    deleteSealObject(parmsId)
  }
  return copy
}

/**
 * Two ciphertext operands at one level (and, for CKKS add/sub, one scale). Without
 * `align` a mismatch is `LEVEL_MISMATCH` / `SCALE_MISMATCH`; with it, the higher
 * operand is mod-switched down and near-equal CKKS scales are unified, on copies.
 */
export function alignCiphertexts(
  frame: StepFrame,
  a: NamedCiphertext,
  b: NamedCiphertext,
  options: { align: boolean; sameScale: boolean },
): [Ciphertext, Ciphertext, ChainLevel] {
  const levelA = levelOf(frame, a.value, a.name)
  const levelB = levelOf(frame, b.value, b.name)
  let x = a.value
  let y = b.value
  if (levelA.chainIndex !== levelB.chainIndex) {
    if (!options.align) {
      throw stepError(
        frame,
        'LEVEL_MISMATCH',
        `'${a.name}' is at level ${levelA.chainIndex} but '${b.name}' is at level ${levelB.chainIndex}; modSwitch the higher one down (or set align: true)`,
        { levels: [levelA.chainIndex, levelB.chainIndex] },
      )
    }
    if (levelA.chainIndex > levelB.chainIndex) x = switchedCopy(frame, a, b.value)
    else y = switchedCopy(frame, b, a.value)
  }
  if (options.sameScale && frame.ctx.scheme === 'ckks' && !sameScale(x.scale(), y.scale())) {
    if (!options.align || !closeScale(x.scale(), y.scale())) {
      throw stepError(
        frame,
        'SCALE_MISMATCH',
        `'${a.name}' has scale ${log2(x.scale())} but '${b.name}' has ${log2(y.scale())}; ${
          options.align
            ? 'they are too far apart to align'
            : 'rescale to match, or set align: true if they differ only by rescaling round-off'
        }`,
        { scales: [x.scale(), y.scale()] },
      )
    }
    if (y === b.value) y = copyOf(frame, b.value)
    y.setScale(x.scale())
  }
  return [x, y, levelOf(frame, x, a.name)]
}

function copyOf(frame: StepFrame, value: Ciphertext): Ciphertext {
  const copy = frame.scope.track(value.copy())
  frame.temporaries.push(copy)
  return copy
}

/**
 * A ciphertext and a plaintext that can be combined. BFV/BGV plaintexts have no
 * level; CKKS plaintexts must be at the ciphertext's level (and scale, for add and
 * sub), or `align` mod-switches whichever is higher on a copy.
 */
export function alignPlaintext(
  frame: StepFrame,
  a: NamedCiphertext,
  b: NamedPlaintext,
  options: { align: boolean; sameScale: boolean },
): [Ciphertext, Plaintext, ChainLevel] {
  const levelA = levelOf(frame, a.value, a.name)
  if (frame.ctx.scheme !== 'ckks') return [a.value, b.value, levelA]
  const levelB = levelOf(frame, b.value, b.name)
  let x = a.value
  let p = b.value
  if (levelA.chainIndex !== levelB.chainIndex) {
    if (!options.align) {
      throw stepError(
        frame,
        'LEVEL_MISMATCH',
        `'${a.name}' is at level ${levelA.chainIndex} but plaintext '${b.name}' is at level ${levelB.chainIndex}; modSwitch the higher one down (or set align: true)`,
        { levels: [levelA.chainIndex, levelB.chainIndex] },
      )
    }
    if (levelA.chainIndex > levelB.chainIndex) {
      x = switchedCopy(frame, a, b.value)
    } else {
      const copy = frame.scope.track(new frame.ctx.seal.Plaintext())
      frame.temporaries.push(copy)
      const parmsId = a.value.parmsId()
      try {
        sealCall(stepLabel(frame.index, frame.op), () => frame.ctx.evaluator.plainModSwitchTo(b.value, parmsId, copy))
      } finally {
        deleteSealObject(parmsId)
      }
      p = copy
    }
  }
  if (options.sameScale && !sameScale(x.scale(), p.scale())) {
    if (!options.align || !closeScale(x.scale(), p.scale())) {
      throw stepError(
        frame,
        'SCALE_MISMATCH',
        `'${a.name}' has scale ${log2(x.scale())} but plaintext '${b.name}' has ${log2(p.scale())}; encode the plaintext at the ciphertext's scale${options.align ? '' : ' (or set align: true if they differ only by rescaling round-off)'}`,
        { scales: [x.scale(), p.scale()] },
      )
    }
    if (p === b.value) {
      p = frame.scope.track(b.value.copy())
      frame.temporaries.push(p)
    }
    p.setScale(x.scale())
  }
  return [x, p, levelOf(frame, x, a.name)]
}

import type { ProgramInput } from '@sealbox/he-core'
import { BenchError } from '../BenchError.ts'

/** The kinds of program the calibration grid runs: each stresses one part of the cost model. */
export const CALIBRATION_KINDS = [
  'multiply',
  'relinearize',
  'grown',
  'rotateOwnKey',
  'rotateNaf',
  'sumElements',
  'plain',
  'manyInputs',
  'keyUpload',
] as const
export type CalibrationKind = (typeof CALIBRATION_KINDS)[number]

export type CalibrationScheme = 'bfv' | 'bgv' | 'ckks'

/** One program of the grid, with the keys it runs with. */
export interface CalibrationProgram {
  kind: CalibrationKind
  program: ProgramInput
  relin: boolean
  /** Rotation steps the key set holds (0: the column rotation). */
  galoisSteps: number[]
}

/** A rotation by 1365 = 0b10101010101 is six NAF terms: SEAL composes it from six key switches without its own key. */
export const NAF_STEP = 1365

const cipher = (name: string) => ({ name, kind: 'ciphertext' as const })
const plainInput = (name: string) => ({ name, kind: 'plaintext' as const })

/** The power-of-two rotation steps up to n/4 (what sumElements and a NAF decomposition use). */
export function powerOfTwoSteps(polyModulusDegree: number): number[] {
  const steps: number[] = []
  for (let step = 1; step <= polyModulusDegree / 4; step *= 2) steps.push(step)
  return steps
}

/**
 * The program of one grid cell. Repetition (`repeat`) makes short ops long enough to
 * time: each repeated step reads the inputs again, so values stay at the inputs' size.
 */
export function calibrationProgram(
  kind: CalibrationKind,
  scheme: CalibrationScheme,
  polyModulusDegree: number,
  repeat: number,
): CalibrationProgram {
  const rotate = scheme === 'ckks' ? 'rotateVector' : 'rotateRows'
  const chain = (step: (i: number) => Record<string, unknown>) =>
    Array.from({ length: repeat }, (_, i) => ({ ...step(i), out: `v${i}` })) as ProgramInput['steps']
  const outputs = Array.from({ length: repeat }, (_, i) => `v${i}`)
  const base = { version: 1 as const, inputs: [cipher('x'), cipher('y')] }
  switch (kind) {
    case 'multiply':
      return {
        kind,
        program: { ...base, steps: chain(() => ({ op: 'multiply', a: 'x', b: 'y' })), outputs },
        relin: false,
        galoisSteps: [],
      }
    case 'relinearize':
      return {
        kind,
        program: {
          ...base,
          steps: [{ op: 'multiply', a: 'x', b: 'y', out: 'm' }, ...chain(() => ({ op: 'relinearize', a: 'm' }))],
          outputs,
        },
        relin: true,
        galoisSteps: [],
      }
    case 'grown': {
      // Sizes 3 and 5 (CKKS: 3 only, its scale would not fit twice), then products of them.
      const steps: ProgramInput['steps'] = [{ op: 'square', a: 'x', out: 's3' }]
      if (scheme !== 'ckks') steps.push({ op: 'square', a: 's3', out: 's5' })
      const big = scheme === 'ckks' ? 's3' : 's5'
      return {
        kind,
        program: {
          ...base,
          steps: [...steps, ...chain(() => ({ op: 'add', a: big, b: big })), ...chainAfter(repeat, big)],
          outputs: [...outputs, ...outputs.map((name) => `w${name}`)],
        },
        relin: false,
        galoisSteps: [],
      }
    }
    case 'rotateOwnKey':
      return {
        kind,
        program: { ...base, steps: chain(() => ({ op: rotate, a: 'x', steps: NAF_STEP })), outputs },
        relin: false,
        galoisSteps: [NAF_STEP],
      }
    case 'rotateNaf':
      return {
        kind,
        program: { ...base, steps: chain(() => ({ op: rotate, a: 'x', steps: NAF_STEP })), outputs },
        relin: false,
        galoisSteps: powerOfTwoSteps(polyModulusDegree),
      }
    case 'sumElements':
      return {
        kind,
        program: { ...base, steps: [{ op: 'sumElements', a: 'x', out: 'v0' }], outputs: ['v0'] },
        relin: false,
        galoisSteps: [...powerOfTwoSteps(polyModulusDegree), ...(scheme === 'ckks' ? [] : [0])],
      }
    case 'plain':
      return {
        kind,
        program: {
          version: 1,
          inputs: [cipher('x'), plainInput('p')],
          steps: chain((i) => ({ op: i % 2 === 0 ? 'multiplyPlain' : 'addPlain', a: 'x', b: 'p' })),
          outputs,
        },
        relin: false,
        galoisSteps: [],
      }
    case 'manyInputs': {
      const names = Array.from({ length: Math.max(2, repeat) }, (_, i) => `x${i}`)
      return {
        kind,
        program: {
          version: 1,
          inputs: names.map(cipher),
          steps: names
            .slice(1)
            .map((name, i) => ({ op: 'add', a: i === 0 ? 'x0' : `v${i - 1}`, b: name, out: `v${i}` })),
          outputs: [`v${names.length - 2}`],
        },
        relin: false,
        galoisSteps: [],
      }
    }
    case 'keyUpload':
      // Not evaluated: the cell uploads this key set (relinearization keys and a sum's Galois keys) and times the check.
      return {
        kind,
        program: { ...base, steps: [{ op: 'add', a: 'x', b: 'y', out: 'v0' }], outputs: ['v0'] },
        relin: true,
        galoisSteps: [...powerOfTwoSteps(polyModulusDegree), ...(scheme === 'ckks' ? [] : [0])],
      }
    default: {
      const never: never = kind
      throw new BenchError('INTERNAL', `unknown kind ${String(never)}`)
    }
  }
}

/** Products of a grown ciphertext with a fresh one: size + 1 each. */
function chainAfter(repeat: number, big: string): ProgramInput['steps'] {
  return Array.from({ length: repeat }, (_, i) => ({ op: 'multiply', a: big, b: 'y', out: `wv${i}` }))
}

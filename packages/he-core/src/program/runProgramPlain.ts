import type { SchemeName } from '../params/ParamsSpec.ts'
import type { ProgramStep } from './ProgramSpec.ts'
import { parseProgram } from './parseProgram.ts'

/** Slot values of the plain oracle: bigints mod t (BFV/BGV) or floats (CKKS, real parts). */
export type PlainSlots = bigint[] | number[]

/** What the oracle needs to know about the parameters. */
export interface PlainTarget {
  scheme: SchemeName
  polyModulusDegree: number
  /** BFV/BGV plain modulus. */
  plainModulus?: bigint | undefined
}

function centred(value: bigint, t: bigint): bigint {
  const r = ((value % t) + t) % t
  return r > (t - 1n) / 2n ? r - t : r
}

function rotateLeft<T>(values: readonly T[], steps: number, start: number, length: number): T[] {
  const out = values.slice(start, start + length)
  const shift = ((steps % length) + length) % length
  return [...out.slice(shift), ...out.slice(0, shift)]
}

/**
 * The plain-value oracle of a program: the same computation on ordinary numbers —
 * BFV/BGV slots as integers mod t (centred, like `decodeBatch`), CKKS slots as
 * floats. Level, scale and size steps (relinearize, rescale, mod switch) are the
 * identity on values. Inputs shorter than the slot count are zero-padded, as the
 * encoders do. Tests compare `runProgram` against it; the sandbox may show it.
 */
export function runProgramPlain(
  spec: unknown,
  target: PlainTarget,
  inputs: Record<string, ReadonlyArray<number | bigint>>,
): Record<string, PlainSlots> {
  const { program } = parseProgram(spec)
  const n = target.polyModulusDegree
  const ckks = target.scheme === 'ckks'
  const slots = ckks ? n / 2 : n
  const t = target.plainModulus ?? 0n
  if (!ckks && t < 2n) throw new RangeError('the BFV/BGV oracle needs the plain modulus')
  type Slots = Array<number | bigint>
  const values = new Map<string, Slots>()
  for (const { name } of program.inputs) {
    const given = inputs[name] ?? []
    const padded: Slots = Array.from({ length: slots }, (_, i) => {
      const v = given[i] ?? 0
      return ckks ? Number(v) : centred(BigInt(v), t)
    })
    values.set(name, padded)
  }
  const get = (name: string) => values.get(name) as Slots
  const map2 = (a: Slots, b: Slots, f: (x: number, y: number) => number, g: (x: bigint, y: bigint) => bigint): Slots =>
    a.map((x, i) => (ckks ? f(Number(x), Number(b[i])) : centred(g(BigInt(x), BigInt(b[i] as bigint)), t)))
  const add = (a: Slots, b: Slots) =>
    map2(
      a,
      b,
      (x, y) => x + y,
      (x, y) => x + y,
    )
  const mul = (a: Slots, b: Slots) =>
    map2(
      a,
      b,
      (x, y) => x * y,
      (x, y) => x * y,
    )
  const sum = (a: Slots): Slots => {
    const total = ckks
      ? a.reduce<number>((s, x) => s + Number(x), 0)
      : centred(
          a.reduce<bigint>((s, x) => s + BigInt(x), 0n),
          t,
        )
    return a.map(() => total)
  }
  const rows = (a: Slots, steps: number): Slots =>
    ckks
      ? rotateLeft(a, steps, 0, slots)
      : [...rotateLeft(a, steps, 0, slots / 2), ...rotateLeft(a, steps, slots / 2, slots / 2)]

  const apply = (step: ProgramStep): Slots => {
    const a = get(step.a)
    switch (step.op) {
      case 'add':
      case 'addPlain':
        return add(a, get(step.b))
      case 'sub':
      case 'subPlain':
        return map2(
          a,
          get(step.b),
          (x, y) => x - y,
          (x, y) => x - y,
        )
      case 'negate':
        return map2(
          a,
          a,
          (x) => -x,
          (x) => -x,
        )
      case 'multiply':
      case 'multiplyPlain':
        return mul(a, get(step.b))
      case 'square':
        return mul(a, a)
      case 'exponentiate': {
        let result = a
        for (let i = 1; i < step.exponent; i++) result = mul(result, a)
        return result
      }
      case 'relinearize':
      case 'rescaleToNext':
      case 'modSwitchToNext':
      case 'modSwitchToLast':
      case 'complexConjugate':
        return [...a]
      case 'rotateRows':
      case 'rotateVector':
        return rows(a, step.steps)
      case 'rotateColumns':
        return [...a.slice(slots / 2), ...a.slice(0, slots / 2)]
      case 'sumElements':
        return sum(a)
      case 'innerProduct':
      case 'innerProductPlain':
        return sum(mul(a, get(step.b)))
      default: {
        const never: never = step
        throw new Error(`unknown op ${JSON.stringify(never)}`)
      }
    }
  }
  for (const step of program.steps) values.set(step.out, apply(step))
  return Object.fromEntries(program.outputs.map((name) => [name, get(name) as PlainSlots]))
}

import type { SchemeName } from '../params/ParamsSpec.ts'
import type { PlainEnv, Slots } from './ops/OpDefinition.ts'
import { definitionOf } from './ops/opTable.ts'
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

/** `value` modulo `t`, centred in (−t/2, t/2] as BFV/BGV batch decoding gives it. */
export function centredMod(value: bigint, t: bigint): bigint {
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
  const values = new Map<string, Slots>()
  for (const { name } of program.inputs) {
    const given = inputs[name] ?? []
    const padded: Slots = Array.from({ length: slots }, (_, i) => {
      const v = given[i] ?? 0
      return ckks ? Number(v) : centredMod(BigInt(v), t)
    })
    values.set(name, padded)
  }
  const get = (name: string) => values.get(name) as Slots
  const map2 = (a: Slots, b: Slots, f: (x: number, y: number) => number, g: (x: bigint, y: bigint) => bigint): Slots =>
    a.map((x, i) => (ckks ? f(Number(x), Number(b[i])) : centredMod(g(BigInt(x), BigInt(b[i] as bigint)), t)))
  const env: PlainEnv = {
    ckks,
    slots,
    get,
    add: (a, b) =>
      map2(
        a,
        b,
        (x, y) => x + y,
        (x, y) => x + y,
      ),
    sub: (a, b) =>
      map2(
        a,
        b,
        (x, y) => x - y,
        (x, y) => x - y,
      ),
    mul: (a, b) =>
      map2(
        a,
        b,
        (x, y) => x * y,
        (x, y) => x * y,
      ),
    negate: (a) =>
      map2(
        a,
        a,
        (x) => -x,
        (x) => -x,
      ),
    sum(a) {
      const total = ckks
        ? a.reduce<number>((s, x) => s + Number(x), 0)
        : centredMod(
            a.reduce<bigint>((s, x) => s + BigInt(x), 0n),
            t,
          )
      return a.map(() => total)
    },
    rotate: (a, steps) =>
      ckks
        ? rotateLeft(a, steps, 0, slots)
        : [...rotateLeft(a, steps, 0, slots / 2), ...rotateLeft(a, steps, slots / 2, slots / 2)],
    swapRows: (a) => [...a.slice(slots / 2), ...a.slice(0, slots / 2)],
  }
  const apply = (step: ProgramStep): Slots => definitionOf(step).plain(step, env)
  for (const step of program.steps) values.set(step.out, apply(step))
  return Object.fromEntries(program.outputs.map((name) => [name, get(name) as PlainSlots]))
}

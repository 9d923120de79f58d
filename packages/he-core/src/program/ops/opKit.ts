import { HeError } from '../../errors/HeError.ts'
import type { SchemeName } from '../../params/ParamsSpec.ts'
import type { StepOf } from '../ProgramSpec.ts'
import { sumElementsSteps } from '../rotationKeys.ts'
import type {
  AnalyzeEnv,
  CostEnv,
  NoiseEnv,
  PlainEnv,
  ProgramOpInfo,
  Slots,
  StepKeyUse,
  StepWork,
  ValueNoise,
} from './OpDefinition.ts'

/*
 * Pieces several op definitions share: operand and scheme lists, key use, the cost
 * of a weighted op and of summing slots, and the product rule of the noise model.
 */

export const ALL_SCHEMES: readonly SchemeName[] = ['bfv', 'bgv', 'ckks']
export const BATCHED_SCHEMES: readonly SchemeName[] = ['bfv', 'bgv']
export const CKKS_SCHEME: readonly SchemeName[] = ['ckks']
export const CIPHER_A = { field: 'a', kind: 'ciphertext' } as const
export const CIPHER_B = { field: 'b', kind: 'ciphertext' } as const
export const PLAIN_B = { field: 'b', kind: 'plaintext' } as const
export const EITHER_A = { field: 'a', kind: 'either' } as const

/** An op's static facts; flags default to false. */
export function opFacts(
  label: string,
  operands: ProgramOpInfo['operands'],
  schemes: readonly SchemeName[],
  summary: string,
  extra: Partial<Pick<ProgramOpInfo, 'relin' | 'alignable' | 'sumsSlots'>> = {},
): ProgramOpInfo {
  return {
    label,
    operands,
    schemes,
    summary,
    relin: extra.relin ?? false,
    alignable: extra.alignable ?? false,
    sumsSlots: extra.sumsSlots ?? false,
  }
}

/** Key use of a step that switches no keys. */
export function noKeys(): StepKeyUse {
  return { galoisSteps: [], column: false, relin: false, keySwitches: 0 }
}

/** Key use of a rotation by `steps`, refused when |steps| reaches the row size. */
export function rotationKeys(step: StepOf<'rotateRows' | 'rotateVector'>, env: AnalyzeEnv): StepKeyUse {
  const n = env.polyModulusDegree
  if (Math.abs(step.steps) >= n / 2) {
    throw new HeError(
      'LIMIT_EXCEEDED',
      `${env.label}: rotation by ${step.steps} is out of range; at n=${n} |steps| must be below ${n / 2}`,
      { details: env.details },
    )
  }
  const galoisSteps = step.steps === 0 ? [] : [step.steps]
  return { galoisSteps, column: false, relin: false, keySwitches: galoisSteps.length }
}

/** Key use of summing all slots: rotations by n/4 … 1, and the column rotation in BFV/BGV. */
export function sumKeys(env: AnalyzeEnv, relin: boolean): StepKeyUse {
  const galoisSteps = sumElementsSteps(env.polyModulusDegree)
  const column = env.scheme !== 'ckks'
  return { galoisSteps, column, relin, keySwitches: galoisSteps.length + (column ? 1 : 0) + (relin ? 1 : 0) }
}

/**
 * Cost units of an op at n = 4096 with two data primes, per scheme (a scheme that
 * lacks the op is absent). Taken from the Node 24 column of `npm run benchmark`
 * (packages/bench/results/operations.md, n = 4096, BFVDefault primes); see programCost.ts.
 */
export type SchemeUnits = Partial<Record<SchemeName, number>>

/** The units of `units` under `scheme` (0 where the scheme lacks the op). */
export function unitsOf(units: SchemeUnits, scheme: SchemeName): number {
  return units[scheme] ?? 0
}

/**
 * How much dearer a BGV or CKKS product is per polynomial pair when an operand is grown
 * (size > 2): SEAL multiplies two fresh ciphertexts on a fast path (three products of
 * polynomials), but any other sizes in a general loop that allocates and accumulates a
 * temporary for every pair. The calibration grid's grown cells (products of size 3 and 5
 * ciphertexts, CPU time) measured 3–5× the fresh product's time per pair; BFV's product is
 * dominated by its base extensions, which grow with the sizes as they are (no factor).
 */
export const GROWN_PRODUCT_FACTOR = 3

/**
 * `a.size × b.size / 4` for two ciphertexts (a square: b = a), `a.size / 2` otherwise
 * (sizes below 2 count as 2); BGV and CKKS products of a grown operand times
 * `GROWN_PRODUCT_FACTOR`.
 */
export function sizeFactor(env: Pick<CostEnv, 'scheme' | 'a' | 'b'>): number {
  const a = Math.max(2, env.a.size)
  if (!env.b || env.b.size <= 0) return a / 2
  const b = Math.max(2, env.b.size)
  const grown = env.scheme !== 'bfv' && (a > 2 || b > 2)
  return ((a * b) / 4) * (grown ? GROWN_PRODUCT_FACTOR : 1)
}

/**
 * Units of a rotation made of `switches` key switches. The calibration grid measured
 * a rotation SEAL composes from six NAF terms at 6–10× one with its own key (CPU time,
 * n = 4096), so each term is priced as a whole rotation.
 */
export function rotationUnits(units: number, switches: number): number {
  return units * switches
}

/**
 * How much dearer a key switch is at `primes` data primes than the linear scale says
 * (relative to two): it decomposes into one product per prime, each over all primes, so
 * it grows faster than linearly; the calibration grid measured 1.2–1.4× at four primes.
 */
export function keySwitchScale(primes: number): number {
  return Math.sqrt((primes + 1) / 3)
}

/** Polynomials of the larger ciphertext operand, in pairs (1 for fresh ciphertexts). */
export function polyPairs(env: CostEnv): number {
  return Math.max(2, env.a.size, env.b?.size ?? 0) / 2
}

/** The cost of an op that touches each polynomial of its operands once. */
export function weightedCost(units: SchemeUnits): (step: unknown, env: CostEnv) => StepWork {
  return (_step, env) => ({ work: unitsOf(units, env.scheme) * polyPairs(env) })
}

/**
 * Scratch polynomials of one key switch: SEAL decomposes the switched polynomial
 * into one copy per data prime, each extended by the special prime, and accumulates
 * two polynomials at the extended level (about 2 · (primes + 1) + 2 polynomials at
 * one level's worth of primes, counted here as 4 at the step's level).
 */
export const KEY_SWITCH_SCRATCH = 4

/** Units of summing all slots: log2(n/2) − 1 rotations and additions, plus the column rotation in BFV/BGV. */
export function sumWork(
  env: Pick<CostEnv, 'scheme' | 'polyModulusDegree' | 'primes' | 'rotationSwitches'>,
  units: SumUnits,
): number {
  const add = unitsOf(units.add, env.scheme)
  const rotate = unitsOf(env.scheme === 'ckks' ? units.rotateVector : units.rotateRows, env.scheme)
  const switching = keySwitchScale(env.primes)
  const column =
    env.scheme === 'ckks' ? 0 : rotationUnits(unitsOf(units.rotateColumns, env.scheme), 1) * switching + add
  let work = column
  for (const step of sumElementsSteps(env.polyModulusDegree)) {
    work += rotationUnits(rotate, env.rotationSwitches(step)) * switching + add
  }
  return work
}

/** Scratch of summing slots: the rotated copy and one key switch. */
export const SUM_SCRATCH = 2 + KEY_SWITCH_SCRATCH

/** The units summing slots is made of. */
export interface SumUnits {
  add: SchemeUnits
  rotateRows: SchemeUnits
  rotateVector: SchemeUnits
  rotateColumns: SchemeUnits
}

/** CKKS: log2 of a value's scale (0 when unknown). */
export function scaleOf(value: ValueNoise | undefined): number {
  return value?.scaleBits ?? 0
}

/**
 * BFV/BGV budget after `depth` ciphertext multiplications starting from `first`
 * (the two operands' budgets; both the smaller budget when absent): BFV spends a
 * fixed number of bits, BGV multiplies the noises, so their bits add up.
 */
export function productBudget(env: NoiseEnv, depth: number, first?: readonly [number, number]): number {
  let result = env.budget
  for (let i = 0; i < depth; i++) {
    const [self, other] = i === 0 && first ? first : [result, result]
    result =
      env.scheme === 'bgv'
        ? Math.round(self + other - env.qBits(env.level) - (env.logN - 6))
        : Math.min(self, other) - env.multiplySpend
  }
  return result
}

/** Bits summing all slots spends: one doubling per rotation, plus the key switch. */
export function sumSpend(env: NoiseEnv): number {
  return env.logN + 1
}

/** The plain oracle's value of a level/size/scale step: the operand unchanged. */
export function samePlain(step: { a: string }, env: PlainEnv): Slots {
  return [...env.get(step.a)]
}

/** seal-python's snake_case name of an evaluator method. */
export function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
}

import type { SchemeName } from '../params/ParamsSpec.ts'
import type { ProgramOp, ProgramSpec } from './ProgramSpec.ts'
import { sumElementsSteps } from './rotationKeys.ts'

/*
 * The cost model of HE programs, in one unit so that programs and searches can share
 * a budget and a queue.
 *
 * **1 cost unit = one ciphertext × ciphertext multiply at n = 4096 with two data
 * primes in BGV** (0.86–0.98 ms under Node 24 on this project's 2-core VM, so a unit
 * is about a millisecond of one worker; only ratios matter to scheduling).
 *
 * Each op has a weight at that size, taken from the Node 24 column of
 * `npm run benchmark` (packages/bench/results/operations.md, n = 4096, BFVDefault
 * primes); the work of an op grows like its NTTs, n · log n per prime, so a step's cost
 * is `weight × (n / 4096) × (log2 n / 12) × (primes / 2)`, where `primes` is the number
 * of data primes the ciphertext has *at that step* (a mod switch or rescale drops one).
 * Key switching (relinearize, rotations) does in theory L decompositions of L + 1 NTTs
 * each — quadratic in the primes — but measured here from n = 4096 (2 primes) to
 * n = 16384 (8 primes) it grew 17× against the linear model's 18.7× and the quadratic
 * one's 56×, so it is modelled linear too: the measured 16384 rows (BFV multiply
 * 480–560 ms, relinearize 79–107 ms, rotate 77–89 ms) land within 25 % of the model.
 *
 * Composite ops count what SEAL does: `exponentiate` by e is e − 1 multiplies each
 * followed by a relinearization (SEAL's `multiply_many` over e copies — not log2 e
 * squarings), `sumElements` is log2(n/2) − 1 rotations and additions (plus the column
 * rotation in BFV/BGV), `innerProduct` a multiply, a relinearization and a sum. A
 * multiply of grown ciphertexts (size 3 after an unrelinearized multiply) costs in
 * proportion to the products of their sizes. Loading each input and saving each output
 * costs a little too.
 */

/** Milliseconds of one cost unit on this project's VM (a model, for estimates only). */
export const COST_UNIT_MS = 1

type Weighted = Exclude<ProgramOp, 'exponentiate' | 'sumElements' | 'innerProduct' | 'innerProductPlain'>

/** Units per op at n = 4096 with two data primes, per scheme (ops a scheme lacks are absent). */
const WEIGHTS: Record<SchemeName, Partial<Record<Weighted, number>>> = {
  // BFV multiplies need a base extension: 20–26 ms, 24× BGV's.
  bfv: {
    add: 0.03,
    sub: 0.03,
    negate: 0.02,
    multiply: 23,
    square: 10.5,
    addPlain: 2.3,
    subPlain: 2.8,
    multiplyPlain: 1.7,
    relinearize: 6.3,
    rescaleToNext: 0.1,
    modSwitchToNext: 0.1,
    modSwitchToLast: 0.1,
    rotateRows: 3.6,
    rotateColumns: 2.8,
  },
  bgv: {
    add: 0.03,
    sub: 0.07,
    negate: 0.03,
    multiply: 0.9,
    square: 0.7,
    addPlain: 0.24,
    subPlain: 0.43,
    multiplyPlain: 1,
    relinearize: 8,
    modSwitchToNext: 1,
    modSwitchToLast: 1,
    rotateRows: 3.5,
    rotateColumns: 7.7,
  },
  ckks: {
    add: 0.03,
    sub: 0.02,
    negate: 0.01,
    multiply: 0.5,
    square: 0.3,
    addPlain: 0.03,
    subPlain: 0.01,
    multiplyPlain: 0.6,
    relinearize: 2,
    rescaleToNext: 0.45,
    modSwitchToNext: 0.1,
    modSwitchToLast: 0.1,
    rotateVector: 1.8,
    complexConjugate: 2.2,
  },
}
/** Loading one input envelope or saving one output (deserialize / serialize), per ciphertext. */
const IO_WEIGHT = 0.2

/** Data primes of SEAL's default coefficient modulus (`BFVDefault`, 128-bit) at each n, for targets that give none. */
const DEFAULT_DATA_PRIMES: Record<number, number> = { 1024: 1, 2048: 1, 4096: 2, 8192: 4, 16384: 8, 32768: 15 }

/** What the cost model needs to know about the parameters. */
export interface CostTarget {
  scheme: SchemeName
  polyModulusDegree: number
  /** Data primes of a fresh ciphertext (the coefficient modulus minus the special prime); SEAL's default when absent. */
  dataPrimes?: number
}

/** The cost of one step. */
export interface StepCost {
  index: number
  op: ProgramOp
  /** Data primes of the ciphertext the step works on. */
  primes: number
  units: number
}

/** A program's estimated work, in cost units. */
export interface ProgramCost {
  /** Everything: steps, loading inputs and saving outputs. */
  units: number
  steps: StepCost[]
}

/** Scale of an op at `n` with `primes` data primes, relative to n = 4096 with two. */
export function costScale(polyModulusDegree: number, primes: number): number {
  return (polyModulusDegree / 4096) * (Math.log2(polyModulusDegree) / 12) * (primes / 2)
}

interface ValueShape {
  primes: number
  /** Polynomials in the ciphertext (2 fresh, 3 after an unrelinearized multiply); 0 for plaintexts. */
  size: number
}

/**
 * Estimates the work of a parsed program at `target`, step by step, tracking each
 * value's level (data primes) and size. Inputs are taken at the top level: a client
 * may send them lower, which only makes the estimate an upper bound.
 */
export function programCost(program: ProgramSpec, target: CostTarget): ProgramCost {
  const n = target.polyModulusDegree
  const top = Math.max(1, target.dataPrimes ?? DEFAULT_DATA_PRIMES[n] ?? Math.max(1, Math.round(n / 2048)))
  const weights = WEIGHTS[target.scheme]
  const weight = (op: Weighted) => weights[op] ?? 0
  const values = new Map<string, ValueShape>()
  let units = 0
  for (const input of program.inputs) {
    const ciphertext = input.kind === 'ciphertext'
    values.set(input.name, { primes: top, size: ciphertext ? 2 : 0 })
    units += IO_WEIGHT * costScale(n, top) * (ciphertext ? 1 : 0.5)
  }
  const shapeOf = (name: string): ValueShape => values.get(name) ?? { primes: top, size: 2 }
  const steps = program.steps.map((step, index): StepCost => {
    const a = shapeOf(step.a)
    const b = 'b' in step ? shapeOf(step.b) : undefined
    // Aligned operands meet at the lower level; unaligned ones must already match (SEAL refuses otherwise).
    const primes =
      b && b.size > 0 ? ('align' in step && step.align ? Math.min(a.primes, b.primes) : a.primes) : a.primes
    const scale = costScale(n, primes)
    const sizeFactor = b && b.size > 0 ? (Math.max(2, a.size) * Math.max(2, b.size)) / 4 : Math.max(2, a.size) / 2
    let work: number
    let out: ValueShape = { primes, size: Math.max(2, a.size, b?.size ?? 0) }
    const sum = () => {
      const rotations = sumElementsSteps(n).length
      const rotate = target.scheme === 'ckks' ? weight('rotateVector') : weight('rotateRows')
      const column = target.scheme === 'ckks' ? 0 : weight('rotateColumns') + weight('add')
      return rotations * (rotate + weight('add')) + column
    }
    switch (step.op) {
      case 'multiply':
        work = weight('multiply') * sizeFactor
        out = { primes, size: Math.max(2, a.size) + Math.max(2, b?.size ?? 2) - 1 }
        break
      case 'square':
        work = weight('square') * sizeFactor
        out = { primes, size: 2 * Math.max(2, a.size) - 1 }
        break
      case 'relinearize':
        work = weight('relinearize') * Math.max(1, a.size - 2)
        out = { primes, size: 2 }
        break
      case 'exponentiate':
        work = (step.exponent - 1) * (weight('multiply') + weight('relinearize'))
        out = { primes, size: 2 }
        break
      case 'sumElements':
        work = sum()
        break
      case 'innerProduct':
        work = weight('multiply') * sizeFactor + weight('relinearize') + sum()
        out = { primes, size: 2 }
        break
      case 'innerProductPlain':
        work = weight('multiplyPlain') + sum()
        break
      case 'modSwitchToNext':
      case 'rescaleToNext':
        work = weight(step.op) * (a.size === 0 ? 0.5 : 1)
        out = { primes: Math.max(1, primes - 1), size: a.size }
        break
      case 'modSwitchToLast':
        // One switch per level dropped, each at a smaller level than the last.
        work = weight('modSwitchToNext') * Math.max(0, primes - 1) * (a.size === 0 ? 0.5 : 1)
        out = { primes: 1, size: a.size }
        break
      default:
        work = weight(step.op) * (b ? 1 : Math.max(2, a.size) / 2)
        break
    }
    values.set(step.out, out)
    const stepUnits = work * scale
    units += stepUnits
    return { index, op: step.op, primes, units: stepUnits }
  })
  for (const name of program.outputs) units += IO_WEIGHT * costScale(n, shapeOf(name).primes)
  return { units, steps }
}

/**
 * A search job's cost in the same units: `queries` × he-core's per-query estimate of
 * the search (`SearchConfig.estimatedServerMs`, from `searchCost.ts`).
 */
export function searchCost(config: { estimatedServerMs: number }, queries: number): number {
  return (queries * config.estimatedServerMs) / COST_UNIT_MS
}

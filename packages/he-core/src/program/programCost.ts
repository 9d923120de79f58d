import type { SchemeName } from '../params/ParamsSpec.ts'
import type { ValueShape } from './ops/OpDefinition.ts'
import { definitionOf } from './ops/opTable.ts'
import type { ProgramOp, ProgramSpec } from './ProgramSpec.ts'

/*
 * The cost model of HE programs, in one unit so that programs and searches can share
 * a budget and a queue.
 *
 * **1 cost unit = one ciphertext × ciphertext multiply at n = 4096 with two data
 * primes in BGV** (0.86–0.98 ms under Node 24 on this project's 2-core VM, so a unit
 * is about a millisecond of one worker; only ratios matter to scheduling).
 *
 * Each op has a weight at that size (its definition under `ops/`), taken from the Node 24 column of
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

/**
 * Estimates the work of a parsed program at `target`, step by step, tracking each
 * value's level (data primes) and size. Inputs are taken at the top level: a client
 * may send them lower, which only makes the estimate an upper bound.
 */
export function programCost(program: ProgramSpec, target: CostTarget): ProgramCost {
  const n = target.polyModulusDegree
  const top = Math.max(1, target.dataPrimes ?? DEFAULT_DATA_PRIMES[n] ?? Math.max(1, Math.round(n / 2048)))
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
    const { work, out } = definitionOf(step).cost(step, { scheme: target.scheme, polyModulusDegree: n, a, b, primes })
    values.set(step.out, out ?? { primes, size: Math.max(2, a.size, b?.size ?? 0) })
    const stepUnits = work * costScale(n, primes)
    units += stepUnits
    return { index, op: step.op, primes, units: stepUnits }
  })
  for (const name of program.outputs) units += IO_WEIGHT * costScale(n, shapeOf(name).primes)
  return { units, steps }
}

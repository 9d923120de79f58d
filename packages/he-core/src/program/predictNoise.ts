import type { SchemeName } from '../params/ParamsSpec.ts'
import type { ValueNoise } from './ops/OpDefinition.ts'
import { definitionOf } from './ops/opTable.ts'
import type { ProgramOp, ProgramSpec } from './ProgramSpec.ts'
import { outputKindOf } from './programOps.ts'

export type { ValueNoise } from './ops/OpDefinition.ts'

/*
 * A static estimate of the noise a program spends, for teaching ("this multiply will
 * cost about 32 bits") before anything runs. It is a model fitted to SEAL, not SEAL:
 * the run's measured budgets are the truth, and predictNoise.test.ts checks the model
 * against them (within a few bits) at the sandbox's common parameters.
 *
 * BFV/BGV — the invariant noise budget, in bits. With Q the bits of the data primes at
 * a value's level, t the plain modulus and n the degree (measured with node-seal 7):
 * - a fresh (public-key) encryption has about Q − log2 t − (log2 n − 4) bits — 146 at
 *   BFV n = 8192 (Q = 174, t ≈ 2^20), 45 at n = 4096 (Q = 72); call it the level's ceiling;
 * - BFV ciphertext × ciphertext spends about log2 t + log2 n − 1 bits of the smaller
 *   budget (32 at n = 8192, whatever the budgets were);
 * - BGV ciphertext × ciphertext multiplies the noises, so the bits add up: the result
 *   has about b_a + b_b − Q − (log2 n − 6) bits (145, 145 → 109; 109, 109 → 33);
 * - × plaintext spends about log2 t + (log2 n)/2 − 1.5 bits (a batched plaintext's
 *   coefficients are as large as t); exponentiate by e is ⌈log2 e⌉ multiplications deep;
 * - adding two ciphertexts costs at most a bit; adding a plaintext, negating and
 *   relinearizing nothing visible;
 * - a key switch (rotation) adds a fixed noise: the budget is at most the ceiling − 3;
 *   summing all slots is log2 n + 1 bits (one doubling per rotation, plus the switch);
 * - a mod switch drops a data prime, so the budget falls to the new level's ceiling
 *   if it was above it (a fresh ciphertext loses the prime's bits; a noisy one little).
 *
 * CKKS has no budget: what runs out is levels and room for the scale. The estimate
 * tracks each value's level and log2 scale (a product adds the scales, a rescale
 * divides by the dropped prime) and flags a step whose scale no longer fits its level.
 */

/** What the model needs to know about the parameters. */
export interface NoiseTarget {
  scheme: SchemeName
  polyModulusDegree: number
  /** Bit sizes of the coefficient modulus primes, the last (special, key-switching) prime included. */
  coeffModulusBits: readonly number[]
  /** BFV/BGV: the plain modulus (only its size matters). */
  plainModulus?: bigint | number | undefined
  /** CKKS: log2 of the scale fresh values are encoded at (default 40). */
  scaleBits?: number | undefined
}

/** The predicted outcome of one step. */
export interface StepNoise extends ValueNoise {
  index: number
  op: ProgramOp
  out: string
  /** BFV/BGV: bits this step is predicted to spend (the smallest operand budget minus the result's). */
  spent?: number | undefined
  /** BFV/BGV: the budget is predicted to be gone (decryption would give garbage). CKKS: no level or room left. */
  exhausted: boolean
}

/** The model's prediction for a whole program. */
export interface NoisePrediction {
  /** Facts used for each input (given, or a fresh value's estimate). */
  inputs: Record<string, ValueNoise>
  steps: StepNoise[]
  /** Index of the first step predicted to exhaust the budget (or, CKKS, the levels). */
  firstExhausted?: number | undefined
}

/** Bits of the plain modulus (20 when unknown: SEAL's batching default at n ≤ 16384). */
function plainBits(target: NoiseTarget): number {
  const t = target.plainModulus
  if (t === undefined) return 20
  return typeof t === 'bigint' ? t.toString(2).length : Math.log2(t)
}

/**
 * Predicts, step by step and without SEAL, each result's noise budget (BFV/BGV) or
 * level and scale (CKKS) from the inputs' measured facts (a fresh value's estimate
 * for any not given). The model and its measurements are described above; results
 * are whole bits, never below 0.
 */
export function predictNoise(
  program: ProgramSpec,
  target: NoiseTarget,
  inputs: Record<string, Partial<ValueNoise>> = {},
): NoisePrediction {
  const n = target.polyModulusDegree
  const logN = Math.log2(n)
  const dataPrimes =
    target.coeffModulusBits.length >= 2 ? target.coeffModulusBits.slice(0, -1) : target.coeffModulusBits
  const top = dataPrimes.length - 1
  const ckks = target.scheme === 'ckks'
  const tBits = plainBits(target)
  /** Bits of the data primes at chain index `level`. */
  const qBits = (level: number) => dataPrimes.slice(0, Math.max(0, level) + 1).reduce((sum, bits) => sum + bits, 0)
  const ceiling = (level: number) => Math.max(0, Math.round(qBits(level) - tBits - (logN - 4)))
  const multiplySpend = tBits + logN - 1
  const plainSpend = Math.round(tBits + logN / 2 - 1.5)

  const values = new Map<string, ValueNoise>()
  const given: Record<string, ValueNoise> = {}
  for (const input of program.inputs) {
    const facts = inputs[input.name] ?? {}
    const level = facts.level ?? (ckks || input.kind === 'ciphertext' ? top : undefined)
    const value: ValueNoise = { kind: input.kind, level }
    if (ckks) value.scaleBits = facts.scaleBits ?? target.scaleBits ?? 40
    else if (input.kind === 'ciphertext') value.budget = facts.budget ?? ceiling(level ?? top)
    values.set(input.name, value)
    given[input.name] = value
  }
  const get = (name: string): ValueNoise => values.get(name) ?? { kind: 'ciphertext', level: top, budget: ceiling(top) }

  let firstExhausted: number | undefined
  const steps = program.steps.map((step, index): StepNoise => {
    const a = get(step.a)
    const b = 'b' in step ? get(step.b) : undefined
    const bothCipher = b !== undefined && b.kind === 'ciphertext' && a.kind === 'ciphertext'
    const levels = [a.level, b?.level].filter((l): l is number => l !== undefined)
    let level = levels.length > 0 ? Math.min(...levels) : undefined
    const budgets = [a.budget, b?.budget].filter((x): x is number => x !== undefined)
    const before = budgets.length > 0 ? Math.min(...budgets) : undefined
    const kind = outputKindOf(step, a.kind)
    let exhausted = false
    let scaleBits: number | undefined
    let budget: number | undefined
    if (ckks || kind === 'ciphertext') {
      const lvl = level ?? top
      const outcome = definitionOf(step).noise(step, {
        scheme: target.scheme,
        ckks,
        logN,
        a,
        b,
        bothCipher,
        level: lvl,
        budget: before ?? ceiling(lvl),
        qBits,
        primeBits: (at) => dataPrimes[at] ?? 0,
        ceiling,
        multiplySpend,
        plainSpend,
      })
      level = outcome.level ?? lvl
      exhausted = outcome.exhausted ?? false
      if (ckks) {
        scaleBits = outcome.scaleBits ?? a.scaleBits ?? 0
        // SEAL refuses a scale within a bit of the whole modulus at that level.
        if (scaleBits >= qBits(level) - 1) exhausted = true
      } else {
        budget = Math.max(0, outcome.budget ?? before ?? ceiling(lvl))
        if (budget === 0) exhausted = true
      }
    }
    const out: StepNoise = {
      index,
      op: step.op,
      out: step.out,
      kind,
      level: kind === 'plaintext' && !ckks ? undefined : level,
      exhausted,
      ...(budget === undefined ? {} : { budget, spent: Math.max(0, (before ?? budget) - budget) }),
      ...(scaleBits === undefined ? {} : { scaleBits }),
    }
    if (exhausted && firstExhausted === undefined) firstExhausted = index
    values.set(step.out, out)
    return out
  })
  return { inputs: given, steps, ...(firstExhausted === undefined ? {} : { firstExhausted }) }
}

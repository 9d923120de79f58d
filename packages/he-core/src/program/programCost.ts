import { galoisElementOf } from '../keys/galoisElements.ts'
import type { SchemeName } from '../params/ParamsSpec.ts'
import type { ValueShape } from './ops/OpDefinition.ts'
import { definitionOf } from './ops/opTable.ts'
import type { ProgramOp, ProgramSpec } from './ProgramSpec.ts'
import { nafTerms } from './rotationKeys.ts'

/*
 * The cost model of HE programs, in one unit so that programs and searches can share
 * a budget and a queue.
 *
 * Each op has a weight per scheme at n = 4096 with two data primes (its definition
 * under `ops/`), first taken from the Node 24 column of `npm run benchmark`
 * (packages/bench/results/operations.md) and then corrected against the clock by the
 * calibration benchmark (`pnpm --filter @sealbox/bench benchmark:calibrate`): a grid of
 * programs — schemes, n, grown ciphertexts, NAF rotations, sums, plaintext operands,
 * many inputs — with key uploads (`keyUploadCost`) and the server's search
 * (`searchCost`), run on a real server's worker, whose CPU time per unit must agree
 * across the grid within 2× (packages/bench/results/calibration/). On this project's
 * VM a unit is `COST_UNIT_MS` (0.22 ms) of a worker's CPU, the grid's median (more wall
 * time when the machine is shared).
 *
 * A step's work grows like its NTTs, n · log n per prime, so its cost is
 * `weight × (n / 4096) × (log2 n / 12) × (primes / 2)`, where `primes` is the number of
 * data primes its ciphertext has *at that step* (a mod switch or rescale drops one);
 * key switches (relinearize, rotations) grow faster with the primes (`keySwitchScale`).
 * Sizes count: a product of ciphertexts of a and b polynomials costs a·b/4 of a fresh
 * one (BGV and CKKS: 3× that when one is grown, SEAL's general path) and has a + b − 1
 * polynomials, and linear ops scale with the larger operand. A
 * rotation SEAL composes from the NAF terms of its step (no key of its own) costs one
 * rotation per term. Composite ops count what SEAL does: `exponentiate` by e is e − 1
 * multiplies each followed by a relinearization (SEAL's `multiply_many`), `sumElements`
 * log2(n/2) − 1 rotations and additions (plus the column rotation in BFV/BGV). Loading
 * each input and saving each output costs a part per object and a part per MiB.
 *
 * The same walk gives the peak heap: every value still to be read, at its size and
 * level, the step's result and SEAL's scratch, the keys and the outputs being saved.
 */

export { COST_UNIT_MS } from './costUnit.ts'

/*
 * Loading an input (inflate, checks, deserialization) and saving an output
 * (serialization, zstd compression inside WebAssembly): a fixed part per object (zstd
 * sets up its tables each time, about 1 ms to save one) and a part per MiB. Measured by
 * the calibration benchmark (`pnpm --filter @sealbox/bench benchmark:calibrate`, worker
 * CPU time): a request whose work was mostly its outputs' bytes ran 10–40× its price
 * before they were counted.
 */
export const LOAD_UNITS_PER_OBJECT = 0.5
export const LOAD_UNITS_PER_MIB = 9
export const SAVE_UNITS_PER_OBJECT = 5
export const SAVE_UNITS_PER_MIB = 11

const MiB = 1024 * 1024
/** Bytes of one coefficient in SEAL's memory (a 64-bit word per prime). */
const WORD = 8
/** What a SEAL context, pools and the module itself keep beside the program's values (measured: 16–40 MiB). */
const BASE_HEAP_BYTES = 48 * MiB

/** Data primes of SEAL's default coefficient modulus (`BFVDefault`, 128-bit) at each n, for targets that give none. */
const DEFAULT_DATA_PRIMES: Record<number, number> = { 1024: 1, 2048: 1, 4096: 2, 8192: 4, 16384: 8, 32768: 15 }

/** What the cost model needs to know about the parameters (and, when known, the keys). */
export interface CostTarget {
  scheme: SchemeName
  polyModulusDegree: number
  /** Data primes of a fresh ciphertext (the coefficient modulus minus the special prime); SEAL's default when absent. */
  dataPrimes?: number
  /**
   * Galois elements of the key set the program will run with. A rotation whose own
   * element is absent costs one key switch per NAF term (SEAL composes it); without
   * this list every rotation is priced at its NAF terms, an upper bound.
   */
  galoisElements?: Iterable<number> | undefined
  /** Bytes the key set takes deserialized in the worker's heap (counted in the peak). */
  keyHeapBytes?: number | undefined
}

/** The cost of one step. */
export interface StepCost {
  index: number
  op: ProgramOp
  /** Data primes of the ciphertext the step works on. */
  primes: number
  units: number
  /** Heap the program's values and this step's scratch take while it runs. */
  heapBytes: number
}

/** A program's estimated work, in cost units, and its estimated peak heap. */
export interface ProgramCost {
  /** Everything: steps, loading inputs and saving outputs. */
  units: number
  steps: StepCost[]
  /** Units of loading the inputs (inflate, deserialize) and saving the outputs. */
  ioUnits: number
  /**
   * The most WASM heap the job needs at once: the context, the keys, the inputs, every
   * value still to be read, the step's result and SEAL's scratch, and the serialized
   * outputs. A worker's heap never shrinks, so this is what the job adds at worst.
   */
  peakHeapBytes: number
}

/** Scale of an op at `n` with `primes` data primes, relative to n = 4096 with two. */
export function costScale(polyModulusDegree: number, primes: number): number {
  return (polyModulusDegree / 4096) * (Math.log2(polyModulusDegree) / 12) * (primes / 2)
}

/**
 * Heap bytes of a value: a ciphertext holds `size` polynomials of n words per prime; a
 * CKKS plaintext one polynomial per prime (NTT form); a BFV/BGV plaintext n words.
 */
export function valueHeapBytes(scheme: SchemeName, polyModulusDegree: number, shape: ValueShape): number {
  if (shape.size > 0) return shape.size * shape.primes * polyModulusDegree * WORD
  return (scheme === 'ckks' ? shape.primes : 1) * polyModulusDegree * WORD
}

/** Key switches of a rotation by `step` given the key set's elements (all NAF terms when unknown). */
function rotationSwitchesOf(n: number, elements: ReadonlySet<number> | undefined): (step: number) => number {
  return (step) => {
    if (step === 0) return 0
    if (elements?.has(galoisElementOf(n, step))) return 1
    // A term of ±n/2 is the identity on the rows (SEAL skips it).
    return Math.max(1, nafTerms(step).filter((term) => Math.abs(term) !== n / 2).length)
  }
}

/**
 * Estimates the work and the peak heap of a parsed program at `target`, step by
 * step, tracking each value's level (data primes) and size (polynomials) and when it
 * is last read. Inputs are size-2 ciphertexts at the top level (the server refuses
 * larger ones; a client may send them lower, which only makes this an upper bound).
 */
export function programCost(program: ProgramSpec, target: CostTarget): ProgramCost {
  const n = target.polyModulusDegree
  const { scheme } = target
  const top = Math.max(1, target.dataPrimes ?? DEFAULT_DATA_PRIMES[n] ?? Math.max(1, Math.round(n / 2048)))
  const elements = target.galoisElements ? new Set(target.galoisElements) : undefined
  const rotationSwitches = rotationSwitchesOf(n, elements)
  const bytesOf = (shape: ValueShape) => valueHeapBytes(scheme, n, shape)
  const values = new Map<string, ValueShape>()
  const lastUse = new Map<string, number>()
  program.steps.forEach((step, index) => {
    lastUse.set(step.a, index)
    if ('b' in step) lastUse.set(step.b, index)
  })
  const kept = new Set([...program.inputs.map((input) => input.name), ...program.outputs])
  let ioUnits = 0
  let live = BASE_HEAP_BYTES + (target.keyHeapBytes ?? 0)
  for (const input of program.inputs) {
    const shape = { primes: top, size: input.kind === 'ciphertext' ? 2 : 0 }
    values.set(input.name, shape)
    live += bytesOf(shape)
    // The envelope's payload is inflated into the heap before SEAL reads it.
    ioUnits += LOAD_UNITS_PER_OBJECT + (LOAD_UNITS_PER_MIB * bytesOf(shape)) / MiB
  }
  let peak = live
  const shapeOf = (name: string): ValueShape => values.get(name) ?? { primes: top, size: 2 }
  const steps = program.steps.map((step, index): StepCost => {
    const a = shapeOf(step.a)
    const b = 'b' in step ? shapeOf(step.b) : undefined
    // Aligned operands meet at the lower level; unaligned ones must already match (SEAL refuses otherwise).
    const aligned = 'align' in step && step.align === true
    const primes = b && b.size > 0 ? (aligned ? Math.min(a.primes, b.primes) : a.primes) : a.primes
    const { work, out, scratch } = definitionOf(step).cost(step, {
      scheme,
      polyModulusDegree: n,
      a,
      b,
      primes,
      rotationSwitches,
    })
    const result = out ?? { primes, size: Math.max(2, a.size, b?.size ?? 0) }
    values.set(step.out, result)
    // An aligned operand is first copied down to the other's level.
    const copies =
      aligned && b && a.primes !== b.primes ? bytesOf(a.primes > b.primes ? { ...a, primes } : { ...b, primes }) : 0
    live += bytesOf(result)
    const heapBytes = live + copies + (scratch ?? 0) * primes * n * WORD
    peak = Math.max(peak, heapBytes)
    for (const name of new Set([step.a, ...('b' in step ? [step.b] : []), step.out])) {
      if (!kept.has(name) && (lastUse.get(name) ?? -1) <= index) live -= bytesOf(shapeOf(name))
    }
    const stepUnits = work * costScale(n, primes)
    return { index, op: step.op, primes, units: stepUnits, heapBytes }
  })
  let outputBytes = 0
  for (const name of program.outputs) {
    const bytes = bytesOf(shapeOf(name))
    outputBytes += bytes
    ioUnits += SAVE_UNITS_PER_OBJECT + (SAVE_UNITS_PER_MIB * bytes) / MiB
  }
  // Each output is serialized into the heap before it is copied out.
  peak = Math.max(peak, live + outputBytes)
  const units = steps.reduce((sum, step) => sum + step.units, ioUnits)
  return { units, steps, ioUnits, peakHeapBytes: peak }
}

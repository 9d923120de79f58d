import type { Ciphertext, GaloisKeys, Plaintext, RelinKeys } from 'node-seal/throws'
import type { HeContext } from '../../params/HeContext.ts'
import type { SchemeName } from '../../params/ParamsSpec.ts'
import type { SealScope } from '../../scope/SealScope.ts'
import type { ProgramOp, StepOf, ValueKind } from '../ProgramSpec.ts'
import type { NamedCiphertext, NamedPlaintext, StepFrame } from '../stepOperands.ts'

/** What an operand must be: a ciphertext, a plaintext, or either (mod switching). */
export type OperandKind = ValueKind | 'either'

/** Static facts about one op: operands, schemes, keys. Drives validation, analysis, the UI and codegen. */
export interface ProgramOpInfo {
  /**
   * The op's name for people ("Rotate rows"): the sandbox's step menu, and the messages
   * a generated program prints, use it where the format's id ("rotateRows") would be code.
   */
  label: string
  /** Operand fields in order, with the kind each must be. */
  operands: ReadonlyArray<{ field: 'a' | 'b'; kind: OperandKind }>
  schemes: readonly SchemeName[]
  /** Needs relinearization keys. */
  relin: boolean
  /** Accepts `align: true`. */
  alignable: boolean
  /** Sums all slots (rotations and additions), so generated code needs its sumElements helper. */
  sumsSlots: boolean
  /**
   * One line for people (UI tooltips, generated-code comments). `a` and `b` stand for
   * the operands (codegen substitutes the names), so no English article "a" here.
   */
  summary: string
}

/** The keys a step uses, found by static analysis. */
export interface StepKeyUse {
  /** Rotation steps it performs (sumElements: n/4 … 1). */
  galoisSteps: number[]
  /** Uses the column rotation / complex conjugation element 2n − 1. */
  column: boolean
  relin: boolean
  /** Key switches it performs when every rotation has its own key. */
  keySwitches: number
}

/** What `analyze` knows about the target and where its errors point. */
export interface AnalyzeEnv {
  scheme: SchemeName
  polyModulusDegree: number
  label: string
  details: { stepIndex: number; op: ProgramOp }
}

/** The shape of a value for the cost model. */
export interface ValueShape {
  /** Data primes at its level. */
  primes: number
  /** Polynomials in the ciphertext (2 fresh, 3 after an unrelinearized multiply); 0 for plaintexts. */
  size: number
}

/** What `cost` knows: the target and the shapes of the operands. */
export interface CostEnv {
  scheme: SchemeName
  polyModulusDegree: number
  a: ValueShape
  b?: ValueShape | undefined
  /** Data primes the step works at (aligned operands meet at the lower level). */
  primes: number
  /**
   * Key switches SEAL performs to rotate by `step`: 1 when the key set holds that
   * rotation's own key, else one per term of its non-adjacent form (SEAL composes it).
   */
  rotationSwitches(step: number): number
}

/** A step's work at n = 4096 with two data primes (the caller scales it), and the shape of its result. */
export interface StepWork {
  work: number
  /** The result's shape; absent: the operands' level and the larger size. */
  out?: ValueShape | undefined
  /**
   * Polynomials at the step's level that SEAL allocates while the step runs, beyond
   * the result (base extensions, key-switching decompositions, rotation buffers); for
   * the peak heap. Absent: none.
   */
  scratch?: number | undefined
}

/** Noise facts of one value, as measured (inputs) or predicted (step results). */
export interface ValueNoise {
  kind: ValueKind
  /** Chain index: top level when fresh, 0 at the last level (BFV/BGV plaintexts: undefined). */
  level?: number | undefined
  /** BFV/BGV ciphertexts: bits of invariant noise budget. */
  budget?: number | undefined
  /** CKKS: log2 of the scale. */
  scaleBits?: number | undefined
}

/** What `noise` knows: the model's constants and the operands' facts (see predictNoise.ts). */
export interface NoiseEnv {
  scheme: SchemeName
  ckks: boolean
  logN: number
  a: ValueNoise
  b?: ValueNoise | undefined
  /** Both operands are ciphertexts. */
  bothCipher: boolean
  /** The lower operand level (the top level when none is known). */
  level: number
  /** BFV/BGV: the smaller operand budget (the level's ceiling when none is known). */
  budget: number
  /** Bits of the data primes at a chain index. */
  qBits(level: number): number
  /** Bits of the one data prime at a chain index. */
  primeBits(level: number): number
  /** BFV/BGV: the budget of a fresh encryption at a chain index. */
  ceiling(level: number): number
  /** BFV: bits one ciphertext × ciphertext multiplication spends. */
  multiplySpend: number
  /** BFV/BGV: bits one × plaintext spends. */
  plainSpend: number
}

/** A step's predicted effect; absent fields keep the operand's (CKKS: scale of a, BFV/BGV: the budget). */
export interface NoiseOutcome {
  level?: number | undefined
  budget?: number | undefined
  scaleBits?: number | undefined
  exhausted?: boolean | undefined
}

/** Slot values in the plain oracle: bigints mod t (BFV/BGV) or floats (CKKS). */
export type Slots = Array<number | bigint>

/** The plain oracle's slot arithmetic (BFV/BGV: centred mod t; CKKS: floats). */
export interface PlainEnv {
  ckks: boolean
  slots: number
  get(name: string): Slots
  add(a: Slots, b: Slots): Slots
  sub(a: Slots, b: Slots): Slots
  mul(a: Slots, b: Slots): Slots
  negate(a: Slots): Slots
  /** Every slot the sum of all. */
  sum(a: Slots): Slots
  /** BFV/BGV: both rows rotated left; CKKS: the vector. */
  rotate(a: Slots, steps: number): Slots
  /** BFV/BGV: the two rows swapped. */
  swapRows(a: Slots): Slots
}

/** A value of a running program. */
export type ProgramValue = { kind: 'ciphertext'; value: Ciphertext } | { kind: 'plaintext'; value: Plaintext }

/** Keys the steps use; presence was checked before the run (`checkProgramKeys`). */
export interface StepKeys {
  relinKeys?: RelinKeys | undefined
  galoisKeys?: GaloisKeys | undefined
}

/** What `execute` works with: the step's frame, its operands and keys, and where new objects go. */
export interface ExecuteEnv {
  frame: StepFrame
  ctx: HeContext
  scope: SealScope
  label: string
  keys: StepKeys
  lookup(name: string): ProgramValue
  cipher(name: string): NamedCiphertext
  plain(name: string): NamedPlaintext
  /** A new ciphertext owned by the scope. */
  out(): Ciphertext
  /** Runs SEAL calls, wrapping their errors to name the step. */
  call(fn: () => void): void
  relinKeys(): RelinKeys
  galoisKeys(): GaloisKeys
}

/** A generated TypeScript/JavaScript step: names, the step's comment and its declarations. */
export interface TsEmitEnv {
  scheme: SchemeName
  ckks: boolean
  /** The identifier of a program name. */
  id(name: string): string
  kinds: Readonly<Record<string, ValueKind>>
  a: string
  out: string
  /** `// step 3 (multiply): …` */
  comment: string
  /** `const out = own(new seal.Ciphertext())` */
  ciphertext: string
  /** `const out = own(new seal.Plaintext())` */
  plaintext: string
  /** The operands after alignment: the names themselves, or `left`/`right` set up inside a block. */
  pair(matchScale: boolean): { setup: string[]; x: string; y: string }
  /** `body` inside a block when the pair needed set-up lines. */
  withPair(pair: { setup: string[] }, body: string[]): string[]
  block(lines: string[]): string[]
}

/** A generated Python step (seal-python 4.1). */
export interface PyEmitEnv {
  scheme: SchemeName
  ckks: boolean
  id(name: string): string
  kinds: Readonly<Record<string, ValueKind>>
  a: string
  out: string
  /** `# step 3 (multiply) → out` */
  comment: string
  /** The operands after alignment, with the line that aligns them if any. */
  pair(matchScale: boolean): { setup: string[]; x: string; y: string }
}

/**
 * Everything sealbox knows about one program op, in one place: its static facts,
 * key use, cost, noise, plain oracle, evaluator and the two code emitters. The
 * table of them (`OP_DEFINITIONS`) is checked against every op of `ProgramStep`,
 * so a new op is one file and the compiler names any part it lacks.
 */
export interface OpDefinition<Op extends ProgramOp = ProgramOp> extends ProgramOpInfo {
  /** Rotation ranges and the keys the step needs (throws `LIMIT_EXCEEDED` for an impossible rotation). */
  analyze(step: StepOf<Op>, env: AnalyzeEnv): StepKeyUse
  /** Work in cost units at n = 4096 with two data primes, and the result's shape. */
  cost(step: StepOf<Op>, env: CostEnv): StepWork
  /** The predicted noise budget (BFV/BGV) or level and scale (CKKS) of the result. */
  noise(step: StepOf<Op>, env: NoiseEnv): NoiseOutcome
  /** The same computation on plain slots (the tests' oracle). */
  plain(step: StepOf<Op>, env: PlainEnv): Slots
  /** Runs the step with SEAL after checking its runtime preconditions. */
  execute(step: StepOf<Op>, env: ExecuteEnv): ProgramValue
  /** The step as node-seal TypeScript/JavaScript statements. */
  emitTs(step: StepOf<Op>, env: TsEmitEnv): string[]
  /** The step as seal-python statements. */
  emitPy(step: StepOf<Op>, env: PyEmitEnv): string[]
}

/** The table of every op's definition, keyed by op. */
export type OpTable = { readonly [Op in ProgramOp]: OpDefinition<Op> }

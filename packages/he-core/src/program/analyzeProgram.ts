import { HeError } from '../errors/HeError.ts'
import { galoisElementOf } from '../keys/galoisElements.ts'
import type { ResolvedParams, SchemeName } from '../params/ParamsSpec.ts'
import { definitionOf } from './ops/opTable.ts'
import { resolveLimits } from './ProgramLimits.ts'
import type { ProgramOp, ProgramSpec, ValueKind } from './ProgramSpec.ts'
import { type ParseProgramOptions, parseProgram } from './parseProgram.ts'
import { type ProgramCost, programCost } from './programCost.ts'
import { PROGRAM_OPS } from './programOps.ts'
import { columnRotationElement } from './rotationKeys.ts'
import { stepLabel } from './stepLabel.ts'

/** What static analysis needs to know about the parameters (an `HeContext` has it all). */
export interface ProgramTarget {
  scheme: SchemeName
  polyModulusDegree: number
  /** False when the coefficient modulus is a single prime: no relinearization or rotations. */
  keySwitching?: boolean
  /** Data primes of a fresh ciphertext, for the cost estimate (SEAL's default for n when absent). */
  dataPrimes?: number
}

/** Static facts of one step. */
export interface StepAnalysis {
  index: number
  op: ProgramOp
  out: string
  kind: ValueKind
  needsRelinKeys: boolean
  /** Rotation steps this step performs (sumElements: n/4 … 1). */
  galoisSteps: number[]
  /** Uses the column rotation / complex conjugation element 2n − 1. */
  needsColumnRotation: boolean
  /** Key switches it performs when every step has its own key. */
  keySwitches: number
}

/** Which keys a program needs and what each step does, computed without SEAL. */
export interface ProgramAnalysis {
  program: ProgramSpec
  scheme: SchemeName
  polyModulusDegree: number
  /** Kind of every input and step output. */
  kinds: Record<string, ValueKind>
  needsRelinKeys: boolean
  /** Distinct non-zero row/vector rotation steps, ascending. */
  galoisSteps: number[]
  /** Column rotation (BFV/BGV) or complex conjugation (CKKS): Galois element 2n − 1. */
  needsColumnRotation: boolean
  /** The Galois elements for exactly those rotations (what `GaloisKeys.hasKey` is asked). */
  galoisElements: number[]
  /** Steps to pass to `createGaloisKeysWithSteps` (0 stands for the column rotation). */
  keyGenSteps: number[]
  steps: StepAnalysis[]
  keySwitches: number
  /** Estimated work in cost units (see `programCost`), for admission and scheduling. */
  cost: ProgramCost
}

function targetOf(
  target: ProgramTarget | { params: ResolvedParams } | ResolvedParams,
): Required<Omit<ProgramTarget, 'dataPrimes'>> & Pick<ProgramTarget, 'dataPrimes'> {
  const params = 'params' in target ? target.params : 'coeffModulusBits' in target ? target : undefined
  if (params) {
    const primes = params.coeffModulusBits.length
    return {
      scheme: params.scheme,
      polyModulusDegree: params.polyModulusDegree,
      keySwitching: primes >= 2,
      // The last prime is the special (key-switching) prime; with one prime it is the data.
      dataPrimes: primes >= 2 ? primes - 1 : 1,
    }
  }
  return { keySwitching: true, ...(target as ProgramTarget) }
}

const SCHEME_HINTS: Partial<Record<ProgramOp, string>> = {
  rotateRows: 'CKKS has no batching rows; use rotateVector',
  rotateColumns: 'CKKS has no batching rows; use complexConjugate or rotateVector',
  rotateVector: 'BFV/BGV slots form two rows; use rotateRows or rotateColumns',
  complexConjugate: 'BFV/BGV slots are integers; there is nothing to conjugate',
  rescaleToNext: 'BFV/BGV have no scale; use modSwitchToNext to drop a level',
  exponentiate: 'CKKS has no exponentiate; use square/multiply with relinearize and rescaleToNext',
}

/**
 * Static analysis of a program against parameters, without SEAL: validates it
 * (`parseProgram`), checks each op against the scheme (`SCHEME_MISMATCH`), rotation
 * ranges and key-switch limits (`LIMIT_EXCEEDED`), and lists exactly which keys it
 * needs — relinearization keys, rotation steps, the column/conjugation element.
 * Cheap enough for every keystroke and for a server to refuse a request whose keys
 * are missing before any work (see `checkProgramKeys`).
 */
export function analyzeProgram(
  input: unknown,
  target: ProgramTarget | { params: ResolvedParams } | ResolvedParams,
  options: ParseProgramOptions = {},
): ProgramAnalysis {
  const limits = resolveLimits(options.limits)
  const { program, kinds } = parseProgram(input, options)
  const { scheme, polyModulusDegree: n, keySwitching, dataPrimes } = targetOf(target)
  const allSteps = new Set<number>()
  let needsColumnRotation = false
  let needsRelinKeys = false
  let keySwitches = 0
  const steps = program.steps.map((step, index): StepAnalysis => {
    const info = PROGRAM_OPS[step.op]
    const label = stepLabel(index, step.op)
    const details = { stepIndex: index, op: step.op }
    if (!info.schemes.includes(scheme)) {
      const allowed = info.schemes.map((s) => s.toUpperCase()).join('/')
      const hint = SCHEME_HINTS[step.op]
      throw new HeError(
        'SCHEME_MISMATCH',
        `${label}: ${step.op} needs ${allowed}, but these parameters are ${scheme.toUpperCase()}${hint ? ` (${hint})` : ''}`,
        { details },
      )
    }
    if ((step.op === 'modSwitchToNext' || step.op === 'modSwitchToLast') && scheme !== 'ckks') {
      if (kinds.get(step.a) === 'plaintext') {
        throw new HeError(
          'SCHEME_MISMATCH',
          `${label}: ${scheme.toUpperCase()} plaintexts have no level (they combine with ciphertexts at any level); use '${step.a}' directly`,
          { details },
        )
      }
    }
    const {
      galoisSteps,
      column,
      relin,
      keySwitches: switches,
    } = definitionOf(step).analyze(step, { scheme, polyModulusDegree: n, label, details })
    if ((relin || galoisSteps.length > 0 || column) && !keySwitching) {
      throw new HeError(
        'MISSING_KEY',
        `${label}: needs ${relin ? 'relinearization' : 'Galois'} keys, which these parameters cannot have (a single coefficient prime: no key switching); use n ≥ 4096`,
        { details },
      )
    }
    for (const s of galoisSteps) allSteps.add(s)
    needsColumnRotation ||= column
    needsRelinKeys ||= relin
    keySwitches += switches
    return {
      index,
      op: step.op,
      out: step.out,
      kind: kinds.get(step.out) ?? 'ciphertext',
      needsRelinKeys: relin,
      galoisSteps,
      needsColumnRotation: column,
      keySwitches: switches,
    }
  })
  if (keySwitches > limits.maxKeySwitches) {
    throw new HeError(
      'LIMIT_EXCEEDED',
      `program performs ${keySwitches} key switches; the limit is ${limits.maxKeySwitches}`,
      { details: { limit: 'keySwitches', count: keySwitches, max: limits.maxKeySwitches } },
    )
  }
  const galoisSteps = [...allSteps].sort((a, b) => a - b)
  const galoisElements = galoisSteps.map((s) => galoisElementOf(n, s))
  if (needsColumnRotation) galoisElements.push(columnRotationElement(n))
  return {
    program,
    scheme,
    polyModulusDegree: n,
    kinds: Object.fromEntries(kinds),
    needsRelinKeys,
    galoisSteps,
    needsColumnRotation,
    galoisElements,
    keyGenSteps: needsColumnRotation ? [...galoisSteps, 0] : galoisSteps,
    steps,
    keySwitches,
    cost: programCost(program, { scheme, polyModulusDegree: n, ...(dataPrimes === undefined ? {} : { dataPrimes }) }),
  }
}

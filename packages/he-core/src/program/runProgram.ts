import type { Ciphertext, Decryptor, GaloisKeys, Plaintext, RelinKeys } from 'node-seal/throws'
import { HeError } from '../errors/HeError.ts'
import { sealCall } from '../errors/toHeError.ts'
import type { HeContext } from '../params/HeContext.ts'
import { chainLevelOf } from '../params/levelTable.ts'
import { SealScope } from '../scope/SealScope.ts'
import { analyzeProgram, type ProgramAnalysis } from './analyzeProgram.ts'
import { checkProgramKeys } from './checkProgramKeys.ts'
import { executeStep, type ProgramValue } from './executeStep.ts'
import type { ProgramLimits } from './ProgramLimits.ts'
import { operandsOf } from './programOps.ts'
import type { StepReport } from './StepReport.ts'
import { type StepFrame, stepError } from './stepOperands.ts'

/** Options of `runProgram`: the inputs by name and the keys the steps need. */
export interface RunProgramOptions {
  /** Every input the program declares, by name. The caller keeps ownership. */
  inputs: Record<string, Ciphertext | Plaintext>
  relinKeys?: RelinKeys | undefined
  galoisKeys?: GaloisKeys | undefined
  /** BFV/BGV: with a decryptor, steps report their noise budget and a budget of 0 stops the run. */
  decryptor?: Decryptor | undefined
  limits?: Partial<ProgramLimits> | undefined
  /** Called after each step, e.g. to show progress. */
  onStep?: ((report: StepReport) => void) | undefined
  /** Checked between steps; when aborted the run stops with `CANCELLED`. */
  signal?: { readonly aborted: boolean } | undefined
}

export type { StepReport } from './StepReport.ts'

/** Result of `runProgram`. The caller owns (and must `.delete()`) every output. */
export interface RunProgramResult {
  outputs: Record<string, Ciphertext | Plaintext>
  steps: StepReport[]
  analysis: ProgramAnalysis
}

function inputError(message: string, name: string, code: 'INVALID_INPUT' | 'PARAMS_MISMATCH' = 'INVALID_INPUT') {
  return new HeError(code, message, { details: { input: name } })
}

/** Checks the given inputs and keys against the program before any step runs. */
function checkInputs(ctx: HeContext, analysis: ProgramAnalysis, options: RunProgramOptions): Map<string, ProgramValue> {
  const { seal } = ctx
  const values = new Map<string, ProgramValue>()
  const declared = new Set(analysis.program.inputs.map((i) => i.name))
  for (const name of Object.keys(options.inputs)) {
    if (!declared.has(name)) throw inputError(`input '${name}' is not declared by the program`, name)
  }
  const keyChecks: Array<[unknown, new () => object, string]> = [
    [options.relinKeys, seal.RelinKeys, 'relinKeys must be a RelinKeys'],
    [options.galoisKeys, seal.GaloisKeys, 'galoisKeys must be a GaloisKeys'],
    [options.decryptor, seal.Decryptor as unknown as new () => object, 'decryptor must be a Decryptor'],
  ]
  for (const [value, type, message] of keyChecks) {
    if (value !== undefined && !(value instanceof type)) throw new HeError('INVALID_INPUT', message)
  }
  for (const { name, kind } of analysis.program.inputs) {
    const value = options.inputs[name]
    if (value === undefined) throw inputError(`input '${name}' (a ${kind}) was not given`, name)
    const type = kind === 'ciphertext' ? seal.Ciphertext : seal.Plaintext
    if (!(value instanceof type)) {
      throw inputError(`input '${name}' must be a ${kind} of this thread's node-seal module`, name)
    }
    if (value.isDeleted()) throw inputError(`input '${name}' has already been deleted`, name)
    if (kind === 'ciphertext') {
      const ct = value as Ciphertext
      if (ct.size() < 2)
        throw inputError(`input '${name}' is an empty ciphertext (nothing was encrypted into it)`, name)
      if (!chainLevelOf(ctx, ct)) {
        throw inputError(`input '${name}' was not made under these parameters`, name, 'PARAMS_MISMATCH')
      }
      if (options.decryptor && ctx.scheme !== 'ckks') {
        const budget = sealCall(`input '${name}'`, () => options.decryptor?.invariantNoiseBudget(ct) ?? 1)
        if (budget === 0) {
          throw new HeError(
            'NOISE_BUDGET_EXHAUSTED',
            `input '${name}' has no noise budget left; it no longer decrypts correctly`,
            { details: { input: name } },
          )
        }
      }
      values.set(name, { kind: 'ciphertext', value: ct })
    } else {
      const pt = value as Plaintext
      // CKKS plaintexts live at a level (NTT form); BFV/BGV batch plaintexts at none.
      if (ctx.scheme === 'ckks' ? !chainLevelOf(ctx, pt) : pt.isNttForm()) {
        throw inputError(`input '${name}' is not a plaintext encoded under these parameters`, name, 'PARAMS_MISMATCH')
      }
      values.set(name, { kind: 'plaintext', value: pt })
    }
  }
  return values
}

/**
 * Runs an HE program with one evaluator, wherever it is called (browser worker,
 * Node, server worker). Before SEAL is touched: the program is validated and
 * analysed against `ctx` (`analyzeProgram`), missing relinearization/Galois keys are
 * reported (`MISSING_KEY`), and the inputs are checked (kind, parameters, noise).
 * Each step then checks levels, scales and sizes first (`LEVEL_MISMATCH`,
 * `SCALE_MISMATCH`, …) and reports its time, level, size and noise budget or scale.
 *
 * Every intermediate is owned by a scope and deleted as soon as it is no longer
 * needed, and all of them on error; only the named outputs are handed back (an
 * output that is an input is copied), and the caller owns them.
 */
export function runProgram(ctx: HeContext, spec: unknown, options: RunProgramOptions): RunProgramResult {
  return runAnalyzedProgram(ctx, analyzeProgram(spec, ctx, { limits: options.limits }), options)
}

/**
 * `runProgram` for a program its caller has already analysed (`analyzeProgram`) against
 * these parameters — a server worker analyses the program it received once, to validate
 * what crossed the thread boundary, and runs that analysis without parsing it again. The
 * analysis's limits are the ones it was made with (`options.limits` is not read).
 */
export function runAnalyzedProgram(
  ctx: HeContext,
  analysis: ProgramAnalysis,
  options: Omit<RunProgramOptions, 'limits'>,
): RunProgramResult {
  const { scheme, polyModulusDegree } = ctx.params
  if (analysis.scheme !== scheme || analysis.polyModulusDegree !== polyModulusDegree) {
    throw new HeError(
      'PARAMS_MISMATCH',
      `the program was analysed for ${analysis.scheme.toUpperCase()} n=${analysis.polyModulusDegree}, the context is ${scheme.toUpperCase()} n=${polyModulusDegree}`,
    )
  }
  checkProgramKeys(analysis, options)
  const values = checkInputs(ctx, analysis, options)
  const { program } = analysis
  const outputs = new Set(program.outputs)
  const lastUse = new Map<string, number>()
  program.steps.forEach((step, index) => {
    for (const name of operandsOf(step)) lastUse.set(name, index)
  })
  const owned = new Set<string>()
  const reports: StepReport[] = []
  const scope = new SealScope()
  try {
    program.steps.forEach((step, index) => {
      if (options.signal?.aborted) throw new HeError('CANCELLED', `cancelled before step ${index + 1}`)
      const frame: StepFrame = { ctx, scope, index, op: step.op, temporaries: [] }
      const started = performance.now()
      let result: ProgramValue
      try {
        result = executeStep(frame, step, (name) => values.get(name) as ProgramValue, options)
      } finally {
        for (const temporary of frame.temporaries) scope.free(temporary)
      }
      values.set(step.out, result)
      owned.add(step.out)
      const report = reportOf(ctx, frame, step.out, result, options.decryptor, performance.now() - started)
      reports.push(report)
      if (report.noiseBudget === 0) {
        throw stepError(
          frame,
          'NOISE_BUDGET_EXHAUSTED',
          `'${step.out}' has no noise budget left, so it would decrypt to garbage; use larger parameters (n, coefficient modulus) or fewer multiplications`,
        )
      }
      options.onStep?.(report)
      // Free what no later step reads, so long programs keep few ciphertexts alive.
      for (const name of new Set([...operandsOf(step), step.out])) {
        if (owned.has(name) && !outputs.has(name) && (lastUse.get(name) ?? -1) <= index) {
          scope.free((values.get(name) as ProgramValue).value)
          values.delete(name)
          owned.delete(name)
        }
      }
    })
    const handed: Record<string, Ciphertext | Plaintext> = {}
    for (const name of program.outputs) {
      const { value } = values.get(name) as ProgramValue
      handed[name] = owned.has(name) ? value : scope.track(value.copy())
    }
    // Release only once nothing can fail any more.
    for (const value of Object.values(handed)) scope.release(value)
    return { outputs: handed, steps: reports, analysis }
  } finally {
    scope.dispose()
  }
}

function reportOf(
  ctx: HeContext,
  frame: StepFrame,
  out: string,
  result: ProgramValue,
  decryptor: Decryptor | undefined,
  timeMs: number,
): StepReport {
  const level = chainLevelOf(ctx, result.value)?.chainIndex
  const base = { index: frame.index, op: frame.op, out, kind: result.kind, timeMs, level }
  const ckks = ctx.scheme === 'ckks'
  if (result.kind === 'plaintext') {
    return {
      ...base,
      size: undefined,
      noiseBudget: undefined,
      scaleLog2: ckks ? Math.log2(result.value.scale()) : undefined,
    }
  }
  const ct = result.value
  const noiseBudget =
    decryptor && !ckks ? sealCall(`${frame.op} noise budget`, () => decryptor.invariantNoiseBudget(ct)) : undefined
  return { ...base, size: ct.size(), noiseBudget, scaleLog2: ckks ? Math.log2(ct.scale()) : undefined }
}

import { HeError } from '../errors/HeError.ts'
import type { GaloisKeyChoice } from '../keys/GaloisKeyChoice.ts'
import { galoisElementOf, normalizeSteps, powerOfTwoSteps } from '../keys/galoisElements.ts'
import { describeParams } from '../params/describeParams.ts'
import type { ResolvedParams } from '../params/ParamsSpec.ts'
import { parseParams } from '../params/parseParams.ts'
import { analyzeProgram, type ProgramAnalysis } from '../program/analyzeProgram.ts'
import { checkProgramKeys } from '../program/checkProgramKeys.ts'
import type { ProgramLimits } from '../program/ProgramLimits.ts'
import type { ProgramSpec } from '../program/ProgramSpec.ts'
import { WorkspaceSpec } from './WorkspaceSpec.ts'

/** The evaluation keys a workspace makes, with every `'auto'` decided. */
export interface WorkspaceKeys {
  relin: boolean
  /** SEAL's power-of-two set, explicit steps (0 = column rotation / conjugation), or none. */
  galois: GaloisKeyChoice
  seeded: boolean
}

/** A validated workspace with everything derived from it, computed without SEAL. */
export interface ParsedWorkspace {
  workspace: WorkspaceSpec
  params: ResolvedParams
  /** The pipeline as a program: inputs are the variables, outputs the printed names. */
  program: ProgramSpec
  analysis: ProgramAnalysis
  keys: WorkspaceKeys
  /** CKKS: the encoding scale of each variable (2^scaleBits). */
  scales: Record<string, number>
}

/** Options for `parseWorkspace` / `runWorkspace`. */
export interface ParseWorkspaceOptions {
  limits?: Partial<ProgramLimits>
  /** Allow security level 'none' in the parameters. */
  allowInsecure?: boolean
}

function invalid(field: string, message: string): HeError {
  return new HeError('INVALID_INPUT', `${field}: ${message}`, { details: { field } })
}

/**
 * Validates a workspace and derives its program, keys and scales before any SEAL
 * work, so the sandbox and `generateCode` refuse the same things `runWorkspace`
 * would: bad parameters (`INVALID_PARAMS`), variables of the wrong number type or
 * too many values (`INVALID_INPUT`, `VALUE_OUT_OF_RANGE`), pipeline errors (as
 * `analyzeProgram` reports them), and key options that cannot run the pipeline
 * (`MISSING_KEY`).
 */
export function parseWorkspace(input: unknown, options: ParseWorkspaceOptions = {}): ParsedWorkspace {
  const parsed = WorkspaceSpec.safeParse(input)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const field = issue?.path.join('.') || 'workspace'
    // ParamsSpec range-checks its numbers itself: those refusals stay parameter errors.
    const code = issue?.path[0] === 'params' ? 'INVALID_PARAMS' : 'INVALID_INPUT'
    throw new HeError(code, `${field}: ${issue?.message ?? 'invalid'}`, {
      cause: parsed.error,
      details: { field },
    })
  }
  const workspace = parsed.data
  const params = parseParams(workspace.params, { allowInsecure: options.allowInsecure })
  const facts = describeParams(params)
  const ckks = params.scheme === 'ckks'
  const scales: Record<string, number> = {}
  const names = new Set<string>()
  workspace.variables.forEach((variable, index) => {
    const field = `variables.${index}`
    if (names.has(variable.name)) throw invalid(field, `variable '${variable.name}' is defined twice`)
    names.add(variable.name)
    if (variable.values.length > facts.slotCount) {
      throw new HeError(
        'VALUE_OUT_OF_RANGE',
        `${field}: '${variable.name}' has ${variable.values.length} values; ${params.scheme.toUpperCase()} at n=${params.polyModulusDegree} has ${facts.slotCount} slots`,
        { details: { field } },
      )
    }
    variable.values.forEach((value, i) => {
      const ok = ckks
        ? typeof value === 'number' && Number.isFinite(value)
        : typeof value === 'bigint' || Number.isSafeInteger(value)
      if (!ok) {
        const want = ckks ? 'a finite real number (CKKS)' : `an integer (${params.scheme.toUpperCase()})`
        throw invalid(`${field}.values.${i}`, `${String(value)} is not ${want}`)
      }
    })
    if (variable.scaleBits !== undefined && !ckks) {
      throw invalid(`${field}.scaleBits`, `${params.scheme.toUpperCase()} has no scale; remove it`)
    }
    if (ckks) scales[variable.name] = 2 ** (variable.scaleBits ?? params.scaleBits ?? 0)
  })
  const program: ProgramSpec = {
    version: 1,
    inputs: workspace.variables.map((v) => ({ name: v.name, kind: v.kind })),
    steps: workspace.steps,
    outputs: workspace.print,
  }
  const analysis = analyzeProgram(program, params, { limits: options.limits })
  const keys = resolveKeys(workspace, params, analysis)
  if ((keys.relin || keys.galois) && !facts.keySwitching) {
    throw new HeError(
      'MISSING_KEY',
      `keys: these parameters (a single coefficient prime) cannot have relinearization or Galois keys`,
    )
  }
  // The keys asked for must cover the pipeline: say so now, not after generating them.
  const n = params.polyModulusDegree
  const galoisSteps = keys.galois === 'powerOfTwo' ? powerOfTwoSteps(n) : keys.galois ? keys.galois.steps : []
  const elements = new Set(galoisSteps.map((step) => galoisElementOf(n, step)))
  checkProgramKeys(analysis, {
    relinKeys: keys.relin ? { hasKey: (power) => power === 2 } : undefined,
    galoisKeys: keys.galois ? { hasKey: (element) => elements.has(element) } : undefined,
  })
  return { workspace, params, program, analysis, keys, scales }
}

function resolveKeys(workspace: WorkspaceSpec, params: ResolvedParams, analysis: ProgramAnalysis): WorkspaceKeys {
  const { relin, galois, seeded } = workspace.keys
  let resolvedGalois: WorkspaceKeys['galois']
  if (galois === 'auto') resolvedGalois = analysis.keyGenSteps.length > 0 ? { steps: analysis.keyGenSteps } : false
  else if (galois === 'none') resolvedGalois = false
  else if (galois === 'powerOfTwo') resolvedGalois = 'powerOfTwo'
  else {
    try {
      resolvedGalois = { steps: normalizeSteps(params.polyModulusDegree, galois.steps) }
    } catch (error) {
      throw invalid('keys.galois.steps', error instanceof Error ? error.message : String(error))
    }
  }
  return { relin: relin === 'auto' ? analysis.needsRelinKeys : relin, galois: resolvedGalois, seeded }
}

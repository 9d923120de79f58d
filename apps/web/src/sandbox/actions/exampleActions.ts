import {
  EXAMPLE_WORKSPACES,
  HeError,
  ParamsSpec,
  type ParsedWorkspace,
  type ProgramStep,
  parseWorkspace,
  type WorkspaceInput,
} from '@sealbox/he-core'
import { draftOf } from '../../workspace/paramsDraft.ts'
import { emptyWorkspace, type PipelineEntry } from '../../workspace/workspaceState.ts'
import type { Outcome, Sandbox } from '../Sandbox.ts'
import { generateKeys } from './keyActions.ts'
import { applyParams } from './paramsActions.ts'
import { runAllSteps } from './pipelineActions.ts'
import { createVariable } from './variableActions.ts'
import { replaceWorkspace } from './workspaceActions.ts'

export type ExampleName = keyof typeof EXAMPLE_WORKSPACES

/** The pipeline entry for an he-core step (fields the op does not use keep their defaults). */
function entryOf(step: ProgramStep): PipelineEntry {
  return {
    id: crypto.randomUUID(),
    op: step.op,
    a: step.a,
    b: 'b' in step ? step.b : '',
    steps: 'steps' in step ? step.steps : 1,
    exponent: 'exponent' in step ? step.exponent : 2,
    align: 'align' in step ? step.align === true : false,
    out: step.out,
  }
}

/**
 * Replaces the workspace with one of he-core's example workspaces and builds it
 * the way a person would: parameters, exactly the keys its pipeline needs, the
 * variables, the pipeline — then runs every step.
 */
export function loadExample(sandbox: Sandbox, name: ExampleName): Promise<Outcome<void>> {
  return buildWorkspace(sandbox, EXAMPLE_WORKSPACES[name])
}

/**
 * Replaces the workspace with an he-core workspace (an example, a permalink) and builds
 * it step by step: parameters, fresh keys, the variables, the pipeline, then runs it.
 */
export async function buildWorkspace(sandbox: Sandbox, input: WorkspaceInput): Promise<Outcome<void>> {
  if (input.variables.length === 0 && input.steps.length === 0 && input.print.length === 0) {
    return buildContext(sandbox, input)
  }
  let parsed: ParsedWorkspace
  try {
    parsed = parseWorkspace(input)
  } catch (error) {
    return { ok: false, error: error instanceof HeError ? error : new HeError('INVALID_INPUT', String(error)) }
  }
  const { workspace } = parsed
  await replaceWorkspace(sandbox, { ...emptyWorkspace(), draft: draftOf(workspace.params) })
  const steps: Array<() => Promise<Outcome<unknown>>> = [
    () => applyParams(sandbox, workspace.params),
    () =>
      generateKeys(sandbox, {
        freshSecretKey: true,
        relin: parsed.keys.relin,
        galois: parsed.keys.galois,
        seeded: parsed.keys.seeded,
      }),
    ...workspace.variables.map((variable) => () => {
      const ckks = workspace.params.scheme === 'ckks'
      const values = ckks ? variable.values.map(Number) : variable.values.map((v) => BigInt(v))
      return createVariable(sandbox, {
        name: variable.name,
        kind: variable.kind,
        values,
        text: variable.values.map(String).join(', '),
      })
    }),
    async () => {
      // The Code panel's Print ticks are the workspace's print (a link carries the sender's ticks).
      sandbox.workspace.update((state) => ({
        ...state,
        pipeline: workspace.steps.map(entryOf),
        print: [...workspace.print],
      }))
      return runAllSteps(sandbox)
    },
  ]
  for (const step of steps) {
    const outcome = await step()
    if (!outcome.ok) return { ok: false, error: outcome.error }
  }
  return { ok: true, value: undefined }
}

/**
 * A workspace of parameters and key options alone (a link copied before anything was
 * typed): the context, then fresh keys as the options say (secret and public always).
 */
async function buildContext(sandbox: Sandbox, input: WorkspaceInput): Promise<Outcome<void>> {
  const params = ParamsSpec.safeParse(input.params)
  if (!params.success) {
    const issue = params.error.issues[0]
    const field = issue?.path.join('.') || 'params'
    return { ok: false, error: new HeError('INVALID_PARAMS', `${field}: ${issue?.message ?? 'invalid'}`) }
  }
  await replaceWorkspace(sandbox, { ...emptyWorkspace(), draft: draftOf(params.data) })
  const applied = await applyParams(sandbox, params.data)
  if (!applied.ok) return applied
  const galois = input.keys?.galois
  return generateKeys(sandbox, {
    freshSecretKey: true,
    relin: input.keys?.relin === true,
    galois: galois === 'powerOfTwo' ? 'powerOfTwo' : typeof galois === 'object' ? { steps: [...galois.steps] } : false,
    seeded: input.keys?.seeded === true,
  })
}

/** One line about each example, for the menu. */
export const EXAMPLE_BLURBS: Record<ExampleName, { title: string; text: string }> = {
  bfv: {
    title: 'BFV, n = 4096',
    text: 'Integers: multiply → relinearize → rotate → add, plaintext ops, row swap, sums, inner products, a square.',
  },
  bgv: {
    title: 'BGV, n = 8192, t = 65537',
    text: 'Seeded keys for exactly its rotations, mod switching with level alignment, a cube, an inner product.',
  },
  ckks: {
    title: 'CKKS, n = 8192',
    text: 'Real numbers: multiply → relinearize → rescale → rotate, aligned adds, conjugation, sums, inner products.',
  },
}

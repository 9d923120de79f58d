import { type NoisePrediction, type ProgramSpec, parseParams, predictNoise } from '@sealbox/he-core'
import type { ExactComparison } from '../../worker/protocol.ts'
import type { WorkspaceState } from '../../workspace/workspaceState.ts'
import { opLabel } from './opGroups.ts'
import { typedNumbers } from './typedInputs.ts'

/** One bar of the noise chart: an input of the pipeline or one of its steps. */
export interface NoiseRow {
  /** "x" for an input, "3 Multiply" for step 3 (the op as the step menu names it). */
  label: string
  name: string
  stepIndex?: number
  /** BFV/BGV: measured budget in bits (inputs: as made; steps: after their last run). */
  measured?: number | undefined
  predicted?: number | undefined
  /** BFV/BGV: measured budget minus the smallest measured operand budget (negative: spent). */
  delta?: number | undefined
  level?: number | undefined
  predictedLevel?: number | undefined
  scaleBits?: number | undefined
  predictedScaleBits?: number | undefined
  /** CKKS: largest |decrypted − exact| over all slots, exact being computed on the numbers typed. */
  maxError?: number | undefined
  predictedExhausted: boolean
}

/**
 * CKKS: a fresh input's error is its encoding and encryption error — the decrypted slots
 * shown (the preview) against the numbers typed (slots past them are 0). Undefined when
 * either is missing (an uploaded input has no typed numbers).
 */
function inputError(typed: string | undefined, preview: ReadonlyArray<unknown> | undefined): number | undefined {
  if (typed === undefined || !preview || preview.length === 0) return undefined
  const values = typedNumbers(typed)
  let max = 0
  for (const [i, shown] of preview.entries()) max = Math.max(max, Math.abs(Number(shown) - (values[i] ?? 0)))
  return Number.isFinite(max) ? max : undefined
}

/** The chart's rows: the pipeline's ciphertext inputs, then every step, predicted and measured. */
export function noiseRows(
  state: WorkspaceState,
  program: ProgramSpec,
  comparisons: readonly ExactComparison[] = [],
): { rows: NoiseRow[]; prediction: NoisePrediction } {
  const applied = state.applied
  if (!applied) throw new Error('noiseRows needs applied parameters')
  const params = parseParams(applied.input)
  const ckks = params.scheme === 'ckks'
  const byName = new Map(state.variables.map((v) => [v.name, v]))
  const inputFacts = Object.fromEntries(
    program.inputs.map((input) => {
      const v = byName.get(input.name)
      return [
        input.name,
        {
          ...(v?.noiseBudget === undefined ? {} : { budget: v.noiseBudget }),
          ...(v?.level === undefined ? {} : { level: v.level }),
          ...(v?.scaleBits === undefined ? {} : { scaleBits: v.scaleBits }),
        },
      ]
    }),
  )
  const prediction = predictNoise(
    program,
    {
      scheme: params.scheme,
      polyModulusDegree: params.polyModulusDegree,
      coeffModulusBits: params.coeffModulusBits,
      plainModulus: applied.plainModulus,
      scaleBits: params.scaleBits,
    },
    inputFacts,
  )
  const errorOf = new Map(comparisons.map((c) => [c.name, c.maxError]))
  const measuredBudget = new Map<string, number>()
  const rows: NoiseRow[] = []
  for (const input of program.inputs) {
    if (input.kind !== 'ciphertext') continue
    const v = byName.get(input.name)
    if (v?.noiseBudget !== undefined) measuredBudget.set(input.name, v.noiseBudget)
    const p = prediction.inputs[input.name]
    rows.push({
      label: input.name,
      name: input.name,
      maxError: ckks ? inputError(v?.values, v?.preview) : undefined,
      measured: v?.noiseBudget,
      predicted: p?.budget,
      level: v?.level,
      predictedLevel: p?.level,
      scaleBits: v?.scaleBits,
      predictedScaleBits: p?.scaleBits,
      predictedExhausted: false,
    })
  }
  for (const [index, step] of program.steps.entries()) {
    const entry = state.pipeline[index]
    const last = entry?.last?.status === 'ok' ? entry.last : undefined
    const result = byName.get(step.out)
    const made = result !== undefined && result.origin === 'pipeline'
    const measured = made ? (last?.noiseBudget ?? result.noiseBudget) : undefined
    if (measured !== undefined) measuredBudget.set(step.out, measured)
    const operands = ('b' in step ? [step.a, step.b] : [step.a])
      .map((name) => measuredBudget.get(name))
      .filter((x): x is number => x !== undefined)
    const p = prediction.steps[index]
    rows.push({
      label: `${index + 1} ${opLabel(step.op)}`,
      name: step.out,
      stepIndex: index,
      measured,
      predicted: p?.budget,
      delta: measured !== undefined && operands.length > 0 ? measured - Math.min(...operands) : undefined,
      level: made ? (last?.level ?? result.level) : undefined,
      predictedLevel: p?.level,
      scaleBits: made ? (last?.scaleBits ?? result.scaleBits) : undefined,
      predictedScaleBits: p?.scaleBits,
      maxError: ckks && made ? errorOf.get(step.out) : undefined,
      predictedExhausted: p?.exhausted ?? false,
    })
  }
  return { rows, prediction }
}

/**
 * The chart's one-line prediction, in the step menu's words: where the budget (BFV/BGV)
 * or the levels (CKKS) run out, else what the pipeline spends and leaves.
 */
export function noiseSummary(
  rows: readonly NoiseRow[],
  prediction: NoisePrediction,
  program: ProgramSpec,
  ckks: boolean,
): string {
  const first = prediction.firstExhausted
  const firstStep = first === undefined ? undefined : program.steps[first]
  const last = prediction.steps.at(-1)
  if (first !== undefined && firstStep) {
    const step = `Step ${first + 1} (${opLabel(firstStep.op)})`
    return ckks
      ? `Predicted: ${step} runs out of levels or room for the scale.`
      : `Predicted: ${step} uses up the noise budget; its result would decrypt to garbage.`
  }
  if (ckks) {
    return `Predicted: the pipeline ends at level ${last?.level ?? '—'} with a scale of 2^${Math.round(last?.scaleBits ?? 0)}.`
  }
  const startBudgets = rows.filter((r) => r.stepIndex === undefined).map((r) => r.predicted ?? 0)
  const spent =
    startBudgets.length > 0 && last?.budget !== undefined ? Math.max(...startBudgets) - last.budget : undefined
  return `Predicted: the pipeline spends about ${spent ?? '—'} bits of noise budget and ends with ${last?.budget ?? '—'} bits left.`
}

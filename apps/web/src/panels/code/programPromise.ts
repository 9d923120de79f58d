import { formatOutputLine } from '@sealbox/he-core'
import { noiseBudgetStopMessage } from '@sealbox/he-core/codegen'
import { formWords } from '../../ui/formWords.ts'
import { hasOperandB } from '../../workspace/pipeline.ts'
import { stepsForPrint } from '../../workspace/stepsForPrint.ts'
import type { PipelineEntry, WorkspaceState } from '../../workspace/workspaceState.ts'

/**
 * What the exported program will do, as far as this sandbox knows from its last run:
 * print these lines; stop at a step with the sandbox's sentence on stderr and exit 1
 * (nothing printed: it prints only after the whole pipeline ran); or not known yet.
 */
export type ProgramPromise =
  | { kind: 'prints'; lines: string[] }
  | { kind: 'stops'; step: number; sentence: string; exhausted: boolean }
  | { kind: 'unknown' }

/**
 * The Code panel's promise for `print`. A pipeline that stopped here on a used-up
 * noise budget stops the program at the same step, with the same sentence (the step named
 * as the step menu names it, in the panel and in every export) — even when
 * "Decrypt anyway" left a result to look at: those numbers are garbage the program
 * never prints. Any other failure stops the program there too (with SEAL's own error).
 * Not known while a step has not run since it was last changed.
 */
export function programPromise(state: WorkspaceState, print: readonly string[]): ProgramPromise {
  // The program runs only the steps its printed values need (workspaceSpecOf), numbered as it runs them.
  const program = stepsForPrint(state.pipeline, print, (entry) => ({
    reads: hasOperandB(entry.op) ? [entry.a, entry.b] : [entry.a],
    out: entry.out,
  })).map((index) => state.pipeline[index] as PipelineEntry)
  const failed = program.findIndex((entry) => entry.last?.status === 'failed')
  const entry = program[failed]
  if (entry?.last?.status === 'failed') {
    const exhausted = entry.last.code === 'NOISE_BUDGET_EXHAUSTED'
    // The exported program prints the exhausted sentence itself (already in the menu's words);
    // any other failure is shown as the step card shows it.
    const sentence = exhausted ? noiseBudgetStopMessage(entry, failed) : formWords(entry.last.message)
    return { kind: 'stops', step: failed + 1, sentence, exhausted }
  }
  // A step changed since it ran (or never ran): the results at hand are of another pipeline.
  if (program.some((step) => step.last?.status !== 'ok')) return { kind: 'unknown' }
  const ckks = state.applied?.input.scheme === 'ckks'
  const lines: string[] = []
  for (const name of print) {
    const variable = state.variables.find((v) => v.name === name)
    if (!variable?.preview) return { kind: 'unknown' }
    lines.push(formatOutputLine(name, variable.preview, { slots: 8, decimals: ckks ? 4 : undefined }))
  }
  return { kind: 'prints', lines }
}

import { HeError, ProgramStep, runProgram } from '@sealbox/he-core'
import type { RequestOf, StepResult, VariableReport } from '../protocol.ts'
import type { SessionValue, WorkerSession } from '../WorkerSession.ts'
import { checkName, reportValue } from './variableHandlers.ts'

/** The operand names a step reads, in order. */
function operandNames(step: ProgramStep): string[] {
  return 'b' in step ? [step.a, step.b] : [step.a]
}

/**
 * he-core names a failing step by its place in the program it ran ("step 1 (multiply): …");
 * each pipeline step runs as its own one-step program, so say which pipeline step it was.
 */
function renumber(error: unknown, index: number, op: string): unknown {
  if (!(error instanceof HeError)) return error
  // Any step label, whichever number it carries, is replaced once: never "Step 6 (…): step 6 (…): …".
  const message = error.message.replace(/^step \d+ \([A-Za-z]+\): /i, '')
  return new HeError(error.code, `Step ${index + 1} (${op}): ${message}`, {
    cause: error,
    details: { ...error.details, stepIndex: index, op },
  })
}

/**
 * Runs one pipeline step with he-core's program evaluator, as a one-step program
 * whose inputs are workspace values. Its result is stored as a workspace value (so
 * the next step, a download, or a decryption can use it), and earlier results stay
 * when a later step fails.
 */
export function runStep(
  session: WorkerSession,
  request: RequestOf<'runStep'>,
): { index: number; result: StepResult; variable: VariableReport } {
  const ctx = session.context
  const step = ProgramStep.parse(request.step)
  const { index } = request
  try {
    checkName(step.out)
    const names = [...new Set(operandNames(step))]
    const inputs: Record<string, SessionValue['handle']> = {}
    const declared = names.map((name) => {
      const value = session.value(name)
      if (!value) {
        throw new HeError(
          'NOT_FOUND',
          `step ${index + 1} (${step.op}): there is no value called '${name}' yet; create it on the Variables panel or run the step that makes it first`,
        )
      }
      inputs[name] = value.handle
      return { name, kind: value.kind }
    })
    if (names.includes(step.out)) {
      throw new HeError(
        'INVALID_PROGRAM',
        `step ${index + 1} (${step.op}): the result needs a new name, not '${step.out}'`,
      )
    }
    const keySet = session.keySet
    const result = runProgram(
      ctx,
      { version: 1, inputs: declared, steps: [step], outputs: [step.out] },
      {
        inputs,
        relinKeys: session.relinKeys,
        galoisKeys: session.galoisKeys,
        // Without the decryptor the evaluator cannot see the budget run out: "decrypt anyway" keeps the garbage.
        decryptor: keySet && ctx.scheme !== 'ckks' && !request.anyway ? keySet.decryptor : undefined,
      },
    )
    const output = result.outputs[step.out]
    const report = result.steps[0]
    if (!output || !report) throw new HeError('INTERNAL', 'the evaluator returned no result')
    const firstCiphertext = declared.find((d) => d.kind === 'ciphertext')
    const keySetId = firstCiphertext
      ? (session.value(firstCiphertext.name) as Extract<SessionValue, { kind: 'ciphertext' }>).keySetId
      : undefined
    session.setValue(
      step.out,
      report.kind === 'ciphertext'
        ? {
            kind: 'ciphertext',
            handle: output as Extract<SessionValue, { kind: 'ciphertext' }>['handle'],
            ...(keySetId ? { keySetId } : {}),
          }
        : { kind: 'plaintext', handle: output as Extract<SessionValue, { kind: 'plaintext' }>['handle'] },
    )
    const variable = reportValue(session, step.out, report.timeMs)
    return {
      index,
      result: {
        timeMs: report.timeMs,
        ...(report.level === undefined ? {} : { level: report.level }),
        ...(report.size === undefined ? {} : { size: report.size }),
        ...(report.noiseBudget === undefined
          ? variable.noiseBudget === undefined
            ? {}
            : { noiseBudget: variable.noiseBudget }
          : { noiseBudget: report.noiseBudget }),
        ...(report.scaleLog2 === undefined ? {} : { scaleBits: report.scaleLog2 }),
      },
      variable,
    }
  } catch (error) {
    throw renumber(error, index, step.op)
  }
}

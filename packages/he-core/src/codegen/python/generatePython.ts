import type { ResolvedParams } from '../../params/ParamsSpec.ts'
import { type ParsedWorkspace, type ParseWorkspaceOptions, parseWorkspace } from '../../workspace/parseWorkspace.ts'
import { indentLines, wrappedListLiteral } from '../sourceLayout.ts'
import { pythonCodecSection, pythonHelpersSection, pythonKeysSection, pythonParamsSection } from './emitPythonSetup.ts'
import { emitPythonStep, type PythonEmitContext, pythonHelpersOf } from './emitPythonStep.ts'
import { pythonIdentifiersFor } from './pythonIdentifiers.ts'

/** The seal-python wheel generated programs are written for (native Microsoft SEAL 4.1). */
export const SEAL_PYTHON_VERSION = '4.1.2.1'

/** The file name a generated Python program is meant to be saved as. */
export const PYTHON_FILE_NAME = 'sealbox_workspace.py'

/** A JavaScript number as a Python float literal (always with a point or exponent). */
function pythonFloat(value: number): string {
  const text = String(value)
  return /[.eE]/.test(text) ? text : `${text}.0`
}

function describe(params: ResolvedParams): string {
  const parts = [params.scheme.toUpperCase(), `n = ${params.polyModulusDegree}`]
  parts.push(`coefficient modulus ${params.coeffModulusBits.join(' + ')} bits`)
  const t = params.plainModulus
  if (t)
    parts.push(
      'batchingBits' in t ? `plain modulus: a ${t.batchingBits}-bit batching prime` : `plain modulus ${t.value}`,
    )
  if (params.scaleBits !== undefined) parts.push(`scale 2^${params.scaleBits}`)
  parts.push(`security ${params.security}`)
  return parts.join(' · ')
}

function variablesSection(parsed: ParsedWorkspace, id: (name: string) => string): string[] {
  const ckks = parsed.params.scheme === 'ckks'
  const lines = ['', '# Variables']
  for (const variable of parsed.workspace.variables) {
    const values = variable.values.map((v) => (ckks ? pythonFloat(Number(v)) : String(BigInt(v))))
    const scale = ckks ? `, 2.0 ** ${variable.scaleBits ?? parsed.params.scaleBits}` : ''
    const [open, close] = variable.kind === 'ciphertext' ? ['encrypt(encode(', `${scale}))`] : ['encode(', `${scale})`]
    lines.push(...wrappedListLiteral(values, `${id(variable.name)} = ${open}`, close, '    '))
  }
  return lines
}

/** The words sealbox's evaluator stops with (`runProgram`), as the sandbox shows them. */
function noiseBudgetMessage(step: { op: string; out: string }, index: number): string {
  return `Step ${index + 1} (${step.op}): '${step.out}' has no noise budget left, so it would decrypt to garbage; use larger parameters (n, coefficient modulus) or fewer multiplications`
}

/** A Python string literal (JSON's escapes are Python's for the text sealbox emits). */
function pyString(text: string): string {
  return JSON.stringify(text)
}

/**
 * Generates a Python program that reproduces a workspace with native Microsoft SEAL
 * through the `seal-python` 4.1 wheel: parameters, keys, variables, every pipeline
 * step and the printed outputs, in exactly `runWorkspace`'s format. BFV/BGV programs
 * stop (exit 1, the sandbox's message on stderr) at the first result without noise
 * budget, like `runWorkspace` and `generateCode`. Pure: validates the workspace like
 * `runWorkspace` (same errors) but never touches SEAL.
 */
export function generatePython(workspace: unknown, options: ParseWorkspaceOptions = {}): string {
  const parsed = parseWorkspace(workspace, options)
  const names = [...parsed.workspace.variables.map((v) => v.name), ...parsed.workspace.steps.map((s) => s.out)]
  const ids = pythonIdentifiersFor(names)
  const id = (name: string) => ids.get(name) ?? name
  const scheme = parsed.params.scheme
  const emit: PythonEmitContext = { scheme, id, kinds: parsed.analysis.kinds }
  const helpers = new Set(parsed.workspace.steps.flatMap((step) => pythonHelpersOf(step, scheme)))
  const guard =
    scheme === 'ckks'
      ? []
      : [
          '# Like sealbox, stop at the first result whose noise budget is used up: it would decrypt to garbage.',
          'def require_noise_budget(ciphertext, message):',
          '    if decryptor.invariant_noise_budget(ciphertext) == 0:',
          '        raise SystemExit(message)',
          '',
        ]
  const body = [
    ...pythonParamsSection(parsed.params),
    ...pythonKeysSection(parsed),
    ...pythonCodecSection(parsed),
    ...pythonHelpersSection(helpers, parsed.params),
    ...variablesSection(parsed, id),
    '',
    '# Pipeline',
    ...guard,
    ...parsed.workspace.steps.flatMap((step, index) => [
      ...emitPythonStep(step, index, emit),
      ...(scheme !== 'ckks' && parsed.analysis.kinds[step.out] === 'ciphertext'
        ? [`require_noise_budget(${id(step.out)}, ${pyString(noiseBudgetMessage(step, index))})`]
        : []),
    ]),
    '',
    '# Decrypt, decode and print',
    ...parsed.workspace.print.map((name) => {
      const value = parsed.analysis.kinds[name] === 'plaintext' ? id(name) : `decrypt(${id(name)})`
      return `print(format_line(${pyString(name)}, decode(${value})))`
    }),
  ]
  const steps = parsed.workspace.steps.length
  return [
    '# Generated by sealbox from a sandbox workspace. It runs native Microsoft SEAL 4.1 through',
    `# the seal-python ${SEAL_PYTHON_VERSION} wheel and does not need sealbox.`,
    `#   ${describe(parsed.params)}`,
    `#   ${steps} pipeline step${steps === 1 ? '' : 's'}; prints ${parsed.workspace.print.join(', ')}`,
    '# Run it with Python >= 3.8:',
    `#   pip install seal-python==${SEAL_PYTHON_VERSION} numpy`,
    `#   python ${PYTHON_FILE_NAME}`,
    'import sys',
    '',
    'import numpy as np',
    'import seal',
    '',
    '',
    '# Native SEAL objects are freed by Python when they go out of scope: nothing to delete.',
    'def main():',
    ...indentLines(body, '    '),
    '',
    '',
    "if __name__ == '__main__':",
    '    main()',
    '',
  ].join('\n')
}

import type { ProgramSpec } from '@sealbox/he-core'
import type { VariableEntry } from '../../workspace/workspaceState.ts'

/** The numbers in a typed list ("1.5, 2 3;4"), as the Variables form read them. */
export function typedNumbers(text: string): number[] {
  return text
    .split(/[\s,;]+/)
    .filter((part) => part !== '')
    .map(Number)
}

/**
 * CKKS: the numbers the user typed for each input of the program, by name: what the
 * error chart measures every bar against. Inputs with no typed numbers (uploaded,
 * converted) are left out, and then count as their decrypted value.
 */
export function typedInputs(program: ProgramSpec, variables: readonly VariableEntry[]): Record<string, number[]> {
  const byName = new Map(variables.map((v) => [v.name, v]))
  const typed: Record<string, number[]> = {}
  for (const input of program.inputs) {
    const text = byName.get(input.name)?.values
    if (text === undefined) continue
    const numbers = typedNumbers(text)
    if (numbers.every(Number.isFinite)) typed[input.name] = numbers
  }
  return typed
}

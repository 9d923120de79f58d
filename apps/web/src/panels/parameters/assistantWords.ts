import type { ParamsNeeds } from '@sealbox/he-core'
import { formWords } from '../../ui/formWords.ts'

/** The assistant's fields, as its form labels them. */
export const ASSISTANT_LABELS: Record<keyof ParamsNeeds, string> = {
  depth: 'Multiplications in a row',
  slots: 'Values per ciphertext',
  plainBits: 'Plaintext bits',
  precisionBits: 'Precision bits after the point',
  security: 'Security',
  scheme: 'Values',
}

/** One unmet need in the form's words, its field named by its label: "… (Values per ciphertext)". */
export function assistantProblem(problem: { field: keyof ParamsNeeds; message: string }): string {
  return `${formWords(problem.message)} (${ASSISTANT_LABELS[problem.field]})`
}

/** A reason for a suggestion in the form's words ("tc128 budget" → "128-bit security budget"). */
export function assistantReason(reason: string): string {
  return formWords(reason)
}

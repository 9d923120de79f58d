import { formWords } from '../../ui/formWords.ts'

/**
 * he-core words a validation message field first ("coeffModulus: 240 bits exceed …");
 * a person reads the reason first and the field, as the form labels it, second
 * ("240 bits exceed … (Coefficient modulus)").
 */
export function plainWordsFirst(message: string): string {
  const match = /^([A-Za-z][\w.[\]]*): (.+)$/s.exec(message)
  if (!match) return formWords(message)
  const [, field, reason = ''] = match
  return formWords(`${reason.charAt(0).toUpperCase()}${reason.slice(1)} (${field})`)
}

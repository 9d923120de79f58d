/**
 * he-core words a validation message field first ("coeffModulus: 240 bits exceed …");
 * a person reads the reason first and the field name second ("240 bits exceed … (coeffModulus)").
 */
export function plainWordsFirst(message: string): string {
  const match = /^([A-Za-z][\w.[\]]*): (.+)$/s.exec(message)
  if (!match) return message
  const [, field, reason = ''] = match
  return `${reason.charAt(0).toUpperCase()}${reason.slice(1)} (${field})`
}

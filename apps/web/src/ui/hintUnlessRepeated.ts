/** The words that carry meaning (four letters or more), folded: "Multiplications" → "multiplication". */
function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[a-z]{4,}/g) ?? []).map((word) => word.replace(/s$/, ''))
}

/**
 * A code's hint without what the message already says: each clause of the hint ("The
 * noise budget ran out", "use larger parameters or fewer multiplications") whose words
 * are (nearly) all in the message is dropped, so an error box never gives its reason
 * twice. Undefined when nothing new is left.
 */
export function hintUnlessRepeated(message: string, hint: string | undefined): string | undefined {
  if (!hint) return undefined
  const said = new Set(contentWords(message))
  const fresh = hint
    .split(/[;.]\s*/)
    .map((clause) => clause.trim())
    .filter((clause) => {
      const words = contentWords(clause)
      if (words.length === 0) return false
      const repeated = words.filter((word) => said.has(word)).length
      return repeated / words.length < 0.75
    })
  if (fresh.length === 0) return undefined
  const text = fresh.join('; ')
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`
}

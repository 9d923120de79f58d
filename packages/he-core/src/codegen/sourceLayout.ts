/** Text layout shared by the node-seal (TypeScript) and seal-python code generators. */

/** Indents every non-empty line by `pad` (blank lines stay empty, so no trailing spaces). */
export function indentLines(lines: readonly string[], pad: string): string[] {
  return lines.map((line) => (line === '' ? '' : `${pad}${line}`))
}

/**
 * A list literal `prefix[a, b, …]suffix`, wrapped so no line gets much longer than 100
 * characters: continuation lines are indented by `pad` and wrapped at 100 − 2·pad.
 */
export function wrappedListLiteral(values: readonly string[], prefix: string, suffix: string, pad: string): string[] {
  const oneLine = `${prefix}[${values.join(', ')}]${suffix}`
  if (oneLine.length <= 100) return [oneLine]
  const width = 100 - 2 * pad.length
  const lines = [`${prefix}[`]
  let line = ''
  for (const value of values) {
    const next = line === '' ? `${value},` : `${line} ${value},`
    if (next.length > width && line !== '') {
      lines.push(`${pad}${line}`)
      line = `${value},`
    } else line = next
  }
  if (line !== '') lines.push(`${pad}${line}`)
  lines.push(`]${suffix}`)
  return lines
}

/**
 * An identifier for every program name in a generated file: the name itself when it is
 * free, otherwise the name with `_` appended until it clashes with nothing in `taken`
 * (the language's reserved words and the generator's own names) or another program name.
 * Program names are already identifier-shaped: a letter, then letters, digits and `_`.
 */
export function identifiersAvoiding(names: readonly string[], taken: ReadonlySet<string>): Map<string, string> {
  const result = new Map<string, string>()
  const used = new Set(names)
  for (const name of names) {
    let id = name
    if (taken.has(id)) {
      do id = `${id}_`
      while (taken.has(id) || used.has(id))
      used.add(id)
    }
    result.set(name, id)
  }
  return result
}

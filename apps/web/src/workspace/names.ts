/** Same rule as he-core program value names (they become identifiers in generated code). */
export const NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]{0,63}$/

/** Why `name` cannot name a new workspace value, or undefined when it can. */
export function nameProblem(name: string, taken: ReadonlySet<string>): string | undefined {
  if (name === '') return 'Give it a name, e.g. x'
  if (!NAME_PATTERN.test(name)) return 'Names start with a letter, then letters, digits or _ (at most 64 characters)'
  if (taken.has(name)) return `'${name}' already exists; pick another name or remove the old one`
  return undefined
}

/** `base` if free, else base2, base3, … */
export function freeName(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base
  for (let i = 2; ; i++) if (!taken.has(`${base}${i}`)) return `${base}${i}`
}

const FIRST_NAMES = ['x', 'y', 'z', 'w', 'u', 'v']

/** A short unused name for the next variable (x, y, z, …, then v1, v2, …). */
export function nextVariableName(taken: ReadonlySet<string>): string {
  return FIRST_NAMES.find((name) => !taken.has(name)) ?? freeName('v1', taken)
}

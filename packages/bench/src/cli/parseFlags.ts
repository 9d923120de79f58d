import type { z } from 'zod'
import { BenchError } from '../BenchError.ts'

/** How a flag is written on the command line and what it takes. */
export interface FlagSpec {
  name: string
  /** `undefined` for a boolean switch. */
  value?: string
  help: string
}

/**
 * Splits `--name value`, `--name=value` and boolean `--name` into a record, then lets a
 * zod schema validate and coerce it. Unknown flags and stray words are errors that
 * list what is accepted.
 */
export function parseFlags<T extends z.ZodType>(
  argv: readonly string[],
  specs: readonly FlagSpec[],
  schema: T,
): z.infer<T> {
  const byName = new Map(specs.map((spec) => [spec.name, spec]))
  const raw: Record<string, string | boolean> = {}
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    // pnpm forwards a literal `--` when called as `npm run benchmark -- --quick`.
    if (arg === '--') continue
    if (!arg.startsWith('--')) throw invalid(`unexpected argument "${arg}"`, specs)
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined]
    const spec = byName.get(name)
    if (!spec) throw invalid(`unknown flag --${name}`, specs)
    if (spec.value === undefined) {
      if (inline !== undefined) throw invalid(`--${name} takes no value`, specs)
      raw[name] = true
      continue
    }
    const value = inline ?? argv[i + 1]
    if (value === undefined || (inline === undefined && value.startsWith('--'))) {
      throw invalid(`--${name} needs a value (${spec.value})`, specs)
    }
    if (inline === undefined) i++
    raw[name] = value
  }
  const parsed = schema.safeParse(raw)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const flag = issue.path.length > 0 ? `--${issue.path.join('.')}` : 'flags'
      return `${flag}: ${issue.message}`
    })
    throw invalid(problems.join('; '), specs)
  }
  return parsed.data
}

/** The usage text for `specs`. */
export function usage(command: string, specs: readonly FlagSpec[]): string {
  const rows = specs.map((spec) => {
    const left = `  --${spec.name}${spec.value ? ` <${spec.value}>` : ''}`
    return `${left.padEnd(34)} ${spec.help}`
  })
  return [`usage: ${command} [flags]`, '', ...rows].join('\n')
}

function invalid(message: string, specs: readonly FlagSpec[]): BenchError {
  return new BenchError('INVALID_FLAGS', `${message}\n\n${usage('npm run benchmark --', specs)}`)
}

import process from 'node:process'
import { parseArgs } from 'node:util'
import { describeParseArgsError } from '@sealbox/he-core/node'
import { z } from 'zod'
import { BenchError } from '../BenchError.ts'

/**
 * A command's flags, declared once: each key of the zod object is a flag name
 * (`warmup-ms` → `--warmup-ms`), each field says what it takes (a `z.boolean()` field
 * is a switch, anything else takes a value) and carries its help text in
 * `.describe()`. An optional `.meta({ value: 'list' })` names the value in the help.
 */
export type FlagsSchema = z.ZodObject<Record<string, z.ZodType>>

/** What `defineCli` needs to know about a command. */
export interface CliDefinition<S extends FlagsSchema> {
  /** The command as a user types it, e.g. `npm run benchmark --`. */
  command: string
  /** One paragraph printed above the flags by `--help`. */
  summary?: string
  flags: S
}

/** A command line reader built from one flag declaration. */
export interface Cli<S extends FlagsSchema> {
  /**
   * Parses `argv` (`--flag value`, `--flag=value`, bare switches; a literal `--` from
   * `npm run x -- …` is ignored) with `node:util` `parseArgs` in strict mode, then
   * validates with the schema. Returns `'help'` for `--help`/`-h`. A problem throws
   * `BenchError('INVALID_FLAGS')` naming the flag and what it expects, followed by the
   * usage text.
   */
  parse(argv: readonly string[]): z.output<S> | 'help'
  /** The `--help` text: every flag with its value, default and description. */
  help(): string
}

/** The schema under `.optional()`, `.default()` and transforms: what the flag itself is. */
function baseOf(schema: z.ZodType): z.ZodType {
  let current: z.ZodType = schema
  for (;;) {
    if (current instanceof z.ZodOptional || current instanceof z.ZodDefault || current instanceof z.ZodNullable) {
      current = current.unwrap() as z.ZodType
    } else if (current instanceof z.ZodPipe) {
      current = current.in as z.ZodType
    } else {
      return current
    }
  }
}

const isSwitch = (schema: z.ZodType) => baseOf(schema) instanceof z.ZodBoolean

/** The value a field takes when its flag is absent, for the help text (`undefined`: none). */
function defaultOf(schema: z.ZodType): string | undefined {
  if (!(schema instanceof z.ZodDefault)) return undefined
  const result = schema.safeParse(undefined)
  if (!result.success) return undefined
  const value: unknown = result.data
  return Array.isArray(value) ? value.join(',') : String(value)
}

/** Declares a command's flags once; see `FlagsSchema`. */
export function defineCli<S extends FlagsSchema>(definition: CliDefinition<S>): Cli<S> {
  const fields = Object.entries(definition.flags.shape) as Array<[string, z.ZodType]>
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {
    help: { type: 'boolean', short: 'h' },
  }
  for (const [name, schema] of fields) options[name] = { type: isSwitch(schema) ? 'boolean' : 'string' }

  function help(): string {
    const rows = fields.map(([name, schema]) => {
      const meta = schema.meta() as { value?: unknown } | undefined
      const value = isSwitch(schema) ? '' : ` <${typeof meta?.value === 'string' ? meta.value : 'value'}>`
      const fallback = defaultOf(schema)
      const text = `${schema.description ?? ''}${fallback === undefined ? '' : ` (default ${fallback})`}`
      return `${`  --${name}${value}`.padEnd(34)} ${text}`
    })
    rows.push(`${'  --help, -h'.padEnd(34)} print this help`)
    const summary = definition.summary === undefined ? [] : [definition.summary, '']
    return [`usage: ${definition.command} [flags]`, '', ...summary, ...rows].join('\n')
  }

  function invalid(message: string): BenchError {
    return new BenchError('INVALID_FLAGS', `${message}\n\n${help()}`)
  }

  function parse(argv: readonly string[]): z.output<S> | 'help' {
    let values: Record<string, string | boolean | undefined>
    try {
      ;({ values } = parseArgs({
        args: argv.filter((arg) => arg !== '--'),
        options,
        strict: true,
        allowPositionals: false,
      }) as { values: Record<string, string | boolean | undefined> })
    } catch (error) {
      throw invalid(describeParseArgsError(error, (name) => options[name]?.type === 'boolean'))
    }
    if (values.help === true) return 'help'
    const { help: _help, ...raw } = values
    const parsed = definition.flags.safeParse(raw)
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => {
        const flag = issue.path.length > 0 ? `--${String(issue.path[0])}` : 'flags'
        const given = issue.path.length > 0 ? raw[String(issue.path[0])] : undefined
        return `${flag}: ${issue.message}${typeof given === 'string' ? ` (got "${given}")` : ''}`
      })
      throw invalid(problems.join('; '))
    }
    return parsed.data
  }

  return { parse, help }
}

/**
 * A program's flags from `argv`, for programs whose whole run is one top-level script:
 * `--help` prints the usage and exits 0; a bad flag prints the problem and exits 2 (the
 * README's promise for every benchmark).
 */
export function readFlagsOrExit<S extends FlagsSchema>(
  cli: Cli<S>,
  name: string,
  argv: readonly string[],
): z.output<S> {
  let parsed: z.output<S> | 'help'
  try {
    parsed = cli.parse(argv)
  } catch (error) {
    process.stderr.write(`${name}: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(2)
  }
  if (parsed === 'help') {
    process.stdout.write(`${cli.help()}\n`)
    process.exit(0)
  }
  return parsed
}

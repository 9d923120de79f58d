import process from 'node:process'
import { parseArgs } from 'node:util'
import { describeParseArgsError } from '@sealbox/he-core/node'
import { z } from 'zod'
import { BenchError } from '../BenchError.ts'

/**
 * A command's flags, declared once: each key of the zod object is a flag name
 * (`warmup-ms` → `--warmup-ms`), each field says what it takes (a `z.boolean()` field
 * is a switch, a `z.array()` field a flag given once per value (`--shape a --shape b`),
 * anything else takes a value) and carries its help text in `.describe()`. An optional `.meta({ value: 'list' })` names the value in the help.
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
const isRepeated = (schema: z.ZodType) => baseOf(schema) instanceof z.ZodArray

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
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {
    help: { type: 'boolean', short: 'h' },
  }
  for (const [name, schema] of fields) {
    options[name] = isRepeated(schema)
      ? { type: 'string', multiple: true }
      : { type: isSwitch(schema) ? 'boolean' : 'string' }
  }

  function help(): string {
    const rows = fields.map(([name, schema]) => {
      const meta = schema.meta() as { value?: unknown } | undefined
      const value = isSwitch(schema)
        ? ''
        : ` <${typeof meta?.value === 'string' ? meta.value : 'value'}>${isRepeated(schema) ? ' …' : ''}`
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
    let values: Record<string, string | string[] | boolean | undefined>
    try {
      ;({ values } = parseArgs({
        args: argv.filter((arg) => arg !== '--'),
        options,
        strict: true,
        allowPositionals: false,
      }) as { values: Record<string, string | string[] | boolean | undefined> })
    } catch (error) {
      throw invalid(describeParseArgsError(error, (name) => options[name]?.type === 'boolean'))
    }
    if (values.help === true) return 'help'
    const { help: _help, ...raw } = values
    const parsed = definition.flags.safeParse(raw)
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => {
        const flag = issue.path.length > 0 ? `--${String(issue.path[0])}` : 'flags'
        const value = issue.path.length > 0 ? raw[String(issue.path[0])] : undefined
        // A repeated flag's problem names the one value it is about.
        const given = Array.isArray(value) && typeof issue.path[1] === 'number' ? value[issue.path[1]] : value
        return `${flag}: ${issue.message}${typeof given === 'string' ? ` (got "${given}")` : ''}`
      })
      throw invalid(problems.join('; '))
    }
    return parsed.data
  }

  return { parse, help }
}

/** The command as a user types it from the repository root, with the flags it was given (`npm run benchmark:x -- …`). */
export function commandLine(command: string, argv: readonly string[]): string {
  const args = argv.filter((arg) => arg !== '--')
  return args.length === 0 ? command : `${command} -- ${args.join(' ')}`
}

/**
 * Runs a benchmark program: reads its flags from `process.argv` (`--help` prints the
 * usage), then `main`. A bad flag exits 2 with the problem and the usage, another
 * BenchError exits 1 with its message, anything else exits 1 with its stack.
 */
export function runProgram<S extends FlagsSchema>(
  name: string,
  cli: Cli<S>,
  main: (flags: z.output<S>, argv: readonly string[]) => Promise<void>,
): void {
  const argv = process.argv.slice(2)
  const run = async () => {
    const flags = cli.parse(argv)
    if (flags === 'help') process.stdout.write(`${cli.help()}\n`)
    else await main(flags, argv)
  }
  run().catch((error: unknown) => {
    if (error instanceof BenchError) {
      process.stderr.write(`${name}: ${error.message}\n`)
      process.exitCode = error.code === 'INVALID_FLAGS' ? 2 : 1
    } else {
      process.stderr.write(
        `${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      )
      process.exitCode = 1
    }
  })
}

import { parseArgs } from 'node:util'
import { HeError } from '@sealbox/he-core'
import { describeParseArgsError } from '@sealbox/he-core/node'
import type { z } from 'zod'
import { type ServerConfig, type ServerConfigInput, ServerConfigSchema } from './ServerConfig.ts'

/** The setting names (environment variables), e.g. `PORT`, `KEY_CACHE_BYTES`. */
export const CONFIG_KEYS = Object.keys(ServerConfigSchema.shape) as Array<keyof ServerConfigInput>

/** Settings that hold secrets (tokens, a database password): an error names them but never echoes their value. */
const SECRET_SETTINGS = new Set<string>(['TOKENS', 'KEY_STORE'])

/** Switches: a bare `--fault-injection` means true; `--fault-injection=false` is still accepted. */
const BOOLEAN_SETTINGS = new Set<string>(['ALLOW_EXECUTOR_OVERRIDE', 'FAULT_INJECTION', 'KEY_STORE_KERNEL_FORMS'])

function flagName(key: string): string {
  return `--${key.toLowerCase().replaceAll('_', '-')}`
}

const KEY_BY_OPTION = new Map<string, keyof ServerConfigInput>(CONFIG_KEYS.map((key) => [flagName(key).slice(2), key]))

/** The command line as read: the settings it gives (as strings) and whether `--help` was asked for. */
export interface ServerFlags {
  help: boolean
  values: Partial<Record<keyof ServerConfigInput, string>>
}

/**
 * Reads `--flag value`, `--flag=value` and bare boolean `--flag` arguments into
 * setting names, with `node:util` `parseArgs` (strict). An unknown flag, a stray word
 * or a flag without its value is an error that names it.
 */
export function parseFlags(argv: readonly string[]): ServerFlags {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {
    help: { type: 'boolean', short: 'h' },
  }
  for (const [option, key] of KEY_BY_OPTION)
    options[option] = { type: BOOLEAN_SETTINGS.has(key) ? 'boolean' : 'string' }
  // parseArgs refuses `--switch=value`; the hand-written parser took `--fault-injection=false`, so keep it.
  const inlineSwitches: Partial<Record<keyof ServerConfigInput, string>> = {}
  const args = argv.filter((arg) => {
    const match = /^--([^=]+)=(.*)$/s.exec(arg)
    const key = match ? KEY_BY_OPTION.get(match[1] as string) : undefined
    if (!match || key === undefined || !BOOLEAN_SETTINGS.has(key)) return true
    inlineSwitches[key] = match[2] as string
    return false
  })
  let parsed: ReturnType<typeof parseArgs>
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: false })
  } catch (error) {
    throw configError(describeParseArgsError(error, isSwitch))
  }
  const values: Partial<Record<keyof ServerConfigInput, string>> = {}
  for (const [option, value] of Object.entries(parsed.values)) {
    const key = KEY_BY_OPTION.get(option)
    if (key !== undefined) values[key] = String(value)
  }
  return { help: parsed.values.help === true, values: { ...values, ...inlineSwitches } }
}

/** Whether `--name` is a switch (no value) among the server's settings. */
function isSwitch(name: string): boolean {
  const key = KEY_BY_OPTION.get(name)
  return key === undefined || BOOLEAN_SETTINGS.has(key)
}

function configError(message: string): HeError {
  return new HeError('INVALID_INPUT', `configuration: ${message}`)
}

/** The default a setting takes when neither env nor flag gives it, as text for `--help`. */
function defaultText(schema: z.ZodType): string {
  const result = schema.safeParse(undefined)
  if (!result.success) return '(required)'
  const value: unknown = result.data
  if (value === undefined) return '(unset)'
  if (Array.isArray(value)) return value.length === 0 ? '(empty)' : value.join(',')
  return String(value)
}

/**
 * The `--help` text: every setting with its flag, environment variable, default and
 * meaning, generated from `ServerConfigSchema`.
 */
export function serverHelp(): string {
  const rows = CONFIG_KEYS.map((key) => {
    const schema = ServerConfigSchema.shape[key] as z.ZodType
    const value = BOOLEAN_SETTINGS.has(key) ? '' : ' <value>'
    return [
      `  ${flagName(key)}${value}`,
      `      env ${key}; default ${defaultText(schema)}`,
      `      ${schema.description ?? ''}`,
    ].join('\n')
  })
  return [
    'usage: node apps/server/dist/main.js [--flag value | --flag=value …]   (built: npm run build)',
    '   or: node --conditions=@sealbox/source apps/server/src/main.ts …       (from source, Node ≥ 22.19)',
    '',
    'Every setting can be given as an environment variable or as a flag; a flag wins over the environment.',
    '',
    ...rows,
    '  --help, -h',
    '      print this help and exit',
  ].join('\n')
}

/** Options for `loadConfig`. */
export interface LoadConfigOptions {
  argv?: readonly string[]
  env?: Record<string, string | undefined>
  /** Typed overrides (tests); they win over flags and env. */
  overrides?: Partial<ServerConfigInput>
}

/**
 * Builds the configuration from environment variables, then flags, then overrides
 * (each later source wins). A bad value throws `HeError('INVALID_INPUT')` whose
 * message names the setting, its flag and what is expected.
 */
export function loadConfig(options: LoadConfigOptions = {}): ServerConfig {
  const raw: Record<string, unknown> = {}
  const env = options.env ?? {}
  for (const key of CONFIG_KEYS) {
    const value = env[key]
    if (value !== undefined && value !== '') raw[key] = value
  }
  Object.assign(raw, parseFlags(options.argv ?? []).values, options.overrides ?? {})
  const parsed = ServerConfigSchema.safeParse(raw)
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const key = String(issue.path[0] ?? 'config')
      const got = key in raw && !SECRET_SETTINGS.has(key) ? ` (got ${JSON.stringify(raw[key])})` : ''
      return `${key} / ${flagName(key)}: ${issue.message}${got}`
    })
    throw configError(lines.join('; '))
  }
  return parsed.data
}

/** A config for tests and embedding: defaults plus typed overrides. */
export function configFor(overrides: Partial<ServerConfigInput> = {}): ServerConfig {
  return loadConfig({ overrides })
}

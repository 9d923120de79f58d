import { HeError } from '@sealbox/he-core'
import { type ServerConfig, type ServerConfigInput, ServerConfigSchema } from './ServerConfig.ts'

/** The setting names (environment variables), e.g. `PORT`, `KEY_CACHE_BYTES`. */
export const CONFIG_KEYS = Object.keys(ServerConfigSchema.shape) as Array<keyof ServerConfigInput>

/** Settings that hold secrets (tokens, a database password): an error names them but never echoes their value. */
const SECRET_SETTINGS = new Set<string>(['TOKENS', 'KEY_STORE'])

function flagName(key: string): string {
  return `--${key.toLowerCase().replaceAll('_', '-')}`
}

const KEY_BY_FLAG = new Map<string, keyof ServerConfigInput>(CONFIG_KEYS.map((key) => [flagName(key), key]))

/**
 * Reads `--flag value`, `--flag=value` and bare boolean `--flag` arguments into
 * setting names. An unknown flag is an error that names it.
 */
export function parseFlags(argv: readonly string[]): Partial<Record<keyof ServerConfigInput, string>> {
  const values: Partial<Record<keyof ServerConfigInput, string>> = {}
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    if (!arg.startsWith('--')) throw configError(`unexpected argument "${arg}"; settings are --name value`)
    const eq = arg.indexOf('=')
    const flag = eq === -1 ? arg : arg.slice(0, eq)
    const key = KEY_BY_FLAG.get(flag)
    if (!key) throw configError(`unknown flag ${flag}; known: ${[...KEY_BY_FLAG.keys()].join(' ')}`)
    if (eq !== -1) values[key] = arg.slice(eq + 1)
    else if (argv[i + 1] !== undefined && !(argv[i + 1] as string).startsWith('--')) values[key] = argv[++i] as string
    else values[key] = 'true'
  }
  return values
}

function configError(message: string): HeError {
  return new HeError('INVALID_INPUT', `configuration: ${message}`)
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
  Object.assign(raw, parseFlags(options.argv ?? []), options.overrides ?? {})
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

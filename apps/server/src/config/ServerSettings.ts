import { availableParallelism } from 'node:os'
import { SERVER_EXECUTOR_MODES, SERVER_MODES } from '@sealbox/he-core/client'
import { z } from 'zod'
import { ADMISSION_SETTINGS } from './admissionSettings.ts'
import { bool, int, MiB, originList, tokenList } from './configValues.ts'
import { SEARCH_SETTINGS } from './searchSettings.ts'
import { STORE_SETTINGS } from './storeSettings.ts'

/**
 * Every setting of the server, each checked alone (ServerConfigSchema adds the rules between
 * them). Keys are the environment variable names; flags are the same names in kebab case
 * (`--key-cache-bytes`). The order is the order of `--help` and the README.
 */
export const ServerSettingsSchema = z.object({
  PORT: int(0, 65535).default(8080).describe('TCP port to listen on; 0 picks a free one.'),
  HOST: z
    .string()
    .min(1)
    .default('localhost')
    .describe('`localhost` listens on the loopback addresses only (IPv4 and IPv6); `0.0.0.0` on every interface.'),
  DATA_DIR: z.string().min(1).default('.sealbox-data').describe('Key sets and the local-mode token secret live here.'),
  EXECUTOR: z
    .enum(SERVER_EXECUTOR_MODES)
    .default('pool')
    .describe(
      'Where HE work runs: `pool` (Piscina worker threads), `inline` (the main event loop) or `process` (child processes).',
    ),
  WORKERS: int(1, 64)
    .default(Math.max(1, availableParallelism() - 1))
    .describe(
      'Worker threads (pool) or child processes (process); inline always uses the main thread. Default: the available cores − 1 (at least 1).',
    ),
  ...SEARCH_SETTINGS,
  MODE: z
    .enum(SERVER_MODES)
    .default('local')
    .describe('`local`: anyone on the machine may get an anonymous token. `production`: configured tokens only.'),
  TOKENS: tokenList.describe(
    'Production tenants: `tenant:token,tenant2:token2`; a tenant may have several tokens (rotation). Prefer TOKENS_FILE.',
  ),
  TOKENS_FILE: z
    .string()
    .min(1)
    .optional()
    .describe(
      'A file of `tenant:token` lines (`#` comments), read at start and again on SIGHUP or when it changes, without a restart: add the new token, switch clients, remove the old one. A file that does not parse keeps the tokens in force.',
    ),
  ...STORE_SETTINGS,
  ...ADMISSION_SETTINGS,
  WEB_DIST: z
    .string()
    .default('../web/dist')
    .describe('Built sandbox to serve at `/`; empty disables. Relative paths resolve against the server package.'),
  FAULT_INJECTION: bool
    .default(false)
    .describe('Test-only fault route `POST /api/v1/_faults/:fault`; refused in production mode.'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('Pino log level.'),
  SHUTDOWN_TIMEOUT_MS: int(0, 600_000).default(30_000).describe('How long shutdown waits for in-flight work.'),
  MAX_EVENT_LOOP_DELAY_MS: int(0, 60_000)
    .default(1000)
    .describe('Event-loop delay above which `@fastify/under-pressure` answers 503.'),
  CORS_ORIGINS: originList.describe(
    'Origins whose pages may call the API (CORS, with a preflight that allows `authorization`, `content-type` and `x-sealbox-executor`); empty: no cross-origin access (the default).',
  ),
  SESSION_RATE: z.coerce
    .number()
    .positive()
    .max(600_000)
    .default(60)
    .describe('Local mode: anonymous sessions one client address may create per minute, after the burst.'),
  SESSION_BURST: int(1, 100_000)
    .default(30)
    .describe("Local mode: sessions one client address may create at once (the token bucket's size)."),
  MAX_ANONYMOUS_TENANTS: int(1, 10_000_000)
    .default(1000)
    .describe(
      'Local mode: anonymous tenants at most; past it a new session is refused (503) until an empty one expires.',
    ),
  ANONYMOUS_STORAGE_BYTES: int(0, 2 ** 50)
    .default(2048 * MiB)
    .describe('Local mode: stored bytes of all anonymous tenants together (each also within TENANT_QUOTA_BYTES).'),
})

/** The settings, each validated alone. */
export type ServerSettings = z.output<typeof ServerSettingsSchema>

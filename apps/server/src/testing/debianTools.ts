import { execFile } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { HeError } from '@sealbox/he-core'
import table from '../../../../scripts/debianTools.json' with { type: 'json' }

/*
 * Helpers for tests that start real Debian services (PostgreSQL, nginx) and browsers
 * on loopback. `.ci/run` and `npm test` install the packages (from the same table,
 * scripts/debianTools.json); these helpers only find them and say clearly which
 * package is missing.
 */

/** A Debian package the tests or benchmarks use, and the file that shows it is installed. */
export interface DebianPackage {
  /** The name code asks for (`debianToolPath('chromium')`); SEALBOX_<TOOL in capitals> overrides the path. */
  tool: string
  bin: string
  pkg: string
  /** `browsers` (browser tests and columns) or `services` (PostgreSQL, nginx). */
  group: 'browsers' | 'services'
  why: string
}

/** Every Debian package the tests and benchmarks use (scripts/debianTools.json). */
export const DEBIAN_PACKAGES = table.packages as readonly DebianPackage[]

/** The packages of `groups` whose binary is missing, plus what those groups also want installed (fonts). */
export function missingDebianPackages(groups: ReadonlyArray<DebianPackage['group']>): string[] {
  const missing = DEBIAN_PACKAGES.filter(({ bin, group }) => groups.includes(group) && !existsSync(bin))
  if (missing.length === 0) return []
  const extras = [...new Set(missing.map(({ group }) => group))].flatMap(
    (group) => (table.groupExtras as Record<string, string[]>)[group] ?? [],
  )
  return [...missing.map(({ pkg }) => pkg), ...extras]
}

/**
 * Where `tool` (a `tool` of scripts/debianTools.json: `chromium`, `webkit_driver`,
 * `minibrowser`, `nginx`, …) is: SEALBOX_<TOOL> when set (a browser installed elsewhere),
 * else where Debian's package puts it. The path may not exist yet: callers that need it
 * say which package to install (`missingDebianPackages`).
 */
export function debianToolPath(tool: string): string {
  const row = DEBIAN_PACKAGES.find((entry) => entry.tool === tool)
  if (!row) throw new HeError('INTERNAL', `scripts/debianTools.json lists no tool "${tool}"`)
  return process.env[`SEALBOX_${tool.toUpperCase()}`] || row.bin
}

/** Flags Debian's Chromium runs headless with: no GPU, no background traffic; as root, no sandbox (no user namespaces). */
export function chromiumFlags(): string[] {
  return [...table.chromiumFlags, ...(isRoot() ? table.chromiumRootFlags : [])]
}

/** The directory of PostgreSQL's server binaries (`initdb`, `pg_ctl`): the newest under /usr/lib/postgresql. */
export function postgresBinDir(): string {
  const fromEnv = process.env.SEALBOX_PG_BIN_DIR
  if (fromEnv) return fromEnv
  const root = '/usr/lib/postgresql'
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((name) => /^\d+$/.test(name) && existsSync(join(root, name, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : []
  const newest = versions[0]
  if (newest === undefined) {
    throw new HeError(
      'INTERNAL',
      'PostgreSQL server binaries not found under /usr/lib/postgresql: install the Debian package `postgresql` (apt-get install postgresql) or set SEALBOX_PG_BIN_DIR',
    )
  }
  return join(root, newest, 'bin')
}

/** The nginx binary. */
export function nginxBinary(): string {
  const candidate = debianToolPath('nginx')
  if (!existsSync(candidate)) {
    throw new HeError(
      'INTERNAL',
      `nginx not found at ${candidate}: install the Debian package \`nginx\` (apt-get install nginx) or set SEALBOX_NGINX`,
    )
  }
  return candidate
}

/** True when running as root (PostgreSQL refuses to run as root: we switch to the `postgres` user). */
export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0
}

// util-linux installs it in /usr/sbin, which a minimal PATH (CI, cron) may lack.
const RUNUSER = ['/usr/sbin/runuser', '/sbin/runuser'].find((path) => existsSync(path)) ?? 'runuser'

/** Output of a finished command. */
export interface CommandResult {
  stdout: string
  stderr: string
}

/**
 * Runs a command to completion; as root, `asUser` runs it through `runuser -u` (Debian's
 * util-linux). A failure throws with the command's stderr in the message.
 */
export function runCommand(
  file: string,
  args: readonly string[],
  options: { asUser?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<CommandResult> {
  const [cmd, argv] =
    options.asUser !== undefined && isRoot() ? [RUNUSER, ['-u', options.asUser, '--', file, ...args]] : [file, args]
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      argv,
      { timeout: options.timeoutMs ?? 60_000, env: options.env ?? process.env, maxBuffer: 16 * 2 ** 20 },
      (error, stdout, stderr) => {
        if (error) {
          reject(
            new HeError('INTERNAL', `${[cmd, ...argv].join(' ')} failed: ${stderr.trim() || error.message}`, {
              cause: error,
            }),
          )
        } else resolve({ stdout, stderr })
      },
    )
  })
}

/** A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

/** How often `waitFor` asks again: a poll interval, short beside anything a test waits for. */
const POLL_MS = 20

/**
 * Waits for an event the caller can only observe by asking (a port that answers, a
 * queue depth in `/metrics`, a log line): polls `check` every POLL_MS until it returns
 * true. Errors from `check` mean "not yet" (a connection refused), except an HeError,
 * which gives up at once (the process being waited for exited). Throws TIMEOUT naming
 * `what` after `timeoutMs`, a deadline for a failure, never an ordering.
 */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 60_000,
): Promise<void> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const ready = await Promise.resolve()
      .then(check)
      .catch((error: unknown) => {
        if (error instanceof HeError) throw error
        return false
      })
    if (ready) return
    if (Date.now() > until) throw new HeError('TIMEOUT', `timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}

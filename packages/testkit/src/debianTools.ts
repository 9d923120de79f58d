import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { HeError } from '@sealbox/he-core'
import table from '../../../scripts/debianTools.json' with { type: 'json' }

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

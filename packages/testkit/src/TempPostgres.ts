import { execFileSync } from 'node:child_process'
import { appendFile, chown, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HeError } from '@sealbox/he-core'
import pg from 'pg'
import { isRoot, postgresBinDir } from './debianTools.ts'
import { freePort } from './freePort.ts'
import { runCommand } from './runCommand.ts'

/** Options of a throwaway cluster. */
export interface TempPostgresOptions {
  /** Extra `postgresql.conf` settings. */
  settings?: Record<string, string | number>
}

// Named like Debian's: the deploy doc's role and database may be called sealbox.
const SUPERUSER = 'postgres'

/**
 * A throwaway PostgreSQL cluster from Debian's packages for tests and benchmarks:
 * `initdb` in a temporary directory, `pg_ctl` on a free loopback port with its Unix
 * socket in the same directory, trust authentication for one superuser, and
 * everything removed by `stop()`. As root the server runs as the `postgres` user
 * (PostgreSQL refuses root). Durability settings are PostgreSQL's defaults (fsync on),
 * so crash tests mean something.
 */
export class TempPostgres {
  readonly dir: string
  readonly port: number
  readonly #bin: string
  readonly #runAs: string | undefined
  #running = false

  private constructor(dir: string, port: number, bin: string, runAs: string | undefined) {
    this.dir = dir
    this.port = port
    this.#bin = bin
    this.#runAs = runAs
  }

  /** Creates and starts a cluster; resolves when it accepts connections. */
  static async start(options: TempPostgresOptions = {}): Promise<TempPostgres> {
    const bin = postgresBinDir()
    const dir = await mkdtemp(join(tmpdir(), 'sealbox-pg-'))
    const runAs = isRoot() ? 'postgres' : undefined
    try {
      if (runAs) {
        const uid = Number(execFileSync('id', ['-u', runAs], { encoding: 'utf8' }).trim())
        const gid = Number(execFileSync('id', ['-g', runAs], { encoding: 'utf8' }).trim())
        await chown(dir, uid, gid)
      }
      await runCommand(
        join(bin, 'initdb'),
        ['-D', join(dir, 'data'), '-U', SUPERUSER, '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
        { ...(runAs ? { asUser: runAs } : {}), timeoutMs: 120_000 },
      )
      const port = await freePort()
      const settings: Record<string, string | number> = {
        listen_addresses: "'127.0.0.1'",
        port,
        unix_socket_directories: `'${dir}'`,
        max_connections: 200,
        shared_buffers: "'128MB'",
        // Key sets are up to tens of MiB: fewer checkpoints during bulk uploads.
        max_wal_size: "'1GB'",
        logging_collector: 'off',
        ...options.settings,
      }
      const lines = Object.entries(settings).map(([key, value]) => `${key} = ${value}`)
      await appendFile(join(dir, 'data', 'postgresql.conf'), `\n# sealbox test cluster\n${lines.join('\n')}\n`)
      const cluster = new TempPostgres(dir, port, bin, runAs)
      await cluster.#ctl('start')
      return cluster
    } catch (error) {
      await rm(dir, { recursive: true, force: true })
      throw error
    }
  }

  /** Connection URL of a database in this cluster (TCP on loopback). */
  url(database = 'postgres'): string {
    return `postgres://${SUPERUSER}@127.0.0.1:${this.port}/${database}`
  }

  /** Creates an empty database and returns its URL. */
  async createDatabase(name: string): Promise<string> {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new HeError('INVALID_INPUT', `bad database name "${name}"`)
    const client = new pg.Client({ connectionString: this.url() })
    await client.connect()
    try {
      await client.query(`CREATE DATABASE ${name}`)
    } finally {
      await client.end()
    }
    return this.url(name)
  }

  /** Simulates a power cut: `pg_ctl stop -m immediate` (no checkpoint, WAL replay on the next start). */
  async crash(): Promise<void> {
    await this.#ctl('stop', ['-m', 'immediate'])
  }

  /** Starts the cluster again after `crash()` or `stopServer()` (same port, same data). */
  async restart(): Promise<void> {
    await this.#ctl('start')
  }

  /** Stops the server process, keeping the data (a clean shutdown). */
  async stopServer(): Promise<void> {
    await this.#ctl('stop', ['-m', 'fast'])
  }

  /** Stops the server and removes the cluster. */
  async stop(): Promise<void> {
    if (this.#running) await this.#ctl('stop', ['-m', 'fast']).catch(() => this.#ctl('stop', ['-m', 'immediate']))
    await rm(this.dir, { recursive: true, force: true })
  }

  /** The server log (for failure messages). */
  log(): Promise<string> {
    return readFile(join(this.dir, 'postgres.log'), 'utf8').catch(() => '')
  }

  async #ctl(action: 'start' | 'stop', extra: readonly string[] = []): Promise<void> {
    const args = ['-D', join(this.dir, 'data'), '-w', '-t', '60', ...extra]
    if (action === 'start') args.push('-l', join(this.dir, 'postgres.log'))
    try {
      await runCommand(join(this.#bin, 'pg_ctl'), [...args, action], {
        ...(this.#runAs ? { asUser: this.#runAs } : {}),
        timeoutMs: 90_000,
      })
    } catch (error) {
      const log = await this.log()
      throw new HeError('INTERNAL', `pg_ctl ${action} failed; server log:\n${log.slice(-2000)}`, { cause: error })
    }
    this.#running = action === 'start'
  }
}

import { type ChildProcess, spawn } from 'node:child_process'
import { createWriteStream, type WriteStream } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { HeError } from '@sealbox/he-core'
import { freePort, waitFor } from './debianTools.ts'

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url))
/** The built server (`npm run build`), run by plain Node without `--conditions`. */
export const BUILT_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url))

/** Options of one sealbox node process. */
export interface ServerNodeOptions {
  /** Settings as environment variables (`KEY_CACHE_BYTES`, `MODE`, …); PORT, HOST and DATA_DIR are set here. */
  env?: Record<string, string>
  /** How long to wait for `/readyz`. */
  readyTimeoutMs?: number
  /** A name for logs and failure messages. */
  name?: string
  /** `source` (default): `node --conditions=@sealbox/source src/main.ts`; `built`: `node dist/main.js` (build first). */
  entry?: 'source' | 'built'
  /** Keep HOST as given in `env` instead of 127.0.0.1 (the node is still reached on 127.0.0.1). */
  keepHost?: boolean
  /** Wait for `/readyz` (default); false returns once the process is spawned (start-up tests). */
  waitReady?: boolean
}

/**
 * One real sealbox server process (`node --conditions=@sealbox/source src/main.ts`)
 * on a free loopback port, with its own data directory and log file; resolves once
 * `/readyz` says its workers are warm. `stop()` sends SIGTERM (graceful shutdown) and
 * removes the directory.
 */
export class ServerNode {
  readonly name: string
  readonly port: number
  readonly dir: string
  readonly #child: ChildProcess
  readonly #log: WriteStream
  readonly #exited: Promise<number | null>

  private constructor(name: string, port: number, dir: string, child: ChildProcess, log: WriteStream) {
    this.name = name
    this.port = port
    this.dir = dir
    this.#child = child
    this.#log = log
    this.#exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)))
  }

  static async start(options: ServerNodeOptions = {}): Promise<ServerNode> {
    const name = options.name ?? 'node'
    const dir = await mkdtemp(join(tmpdir(), `sealbox-${name}-`))
    const port = await freePort()
    const log = createWriteStream(join(dir, 'server.log'))
    const argv = options.entry === 'built' ? [BUILT_MAIN] : ['--conditions=@sealbox/source', MAIN]
    const child = spawn(process.execPath, argv, {
      env: {
        ...process.env,
        LOG_LEVEL: 'warn',
        ...options.env,
        PORT: String(port),
        ...(options.keepHost && options.env?.HOST ? {} : { HOST: '127.0.0.1' }),
        DATA_DIR: join(dir, 'data'),
        WEB_DIST: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    child.stdout?.pipe(log, { end: false })
    child.stderr?.pipe(log, { end: false })
    const node = new ServerNode(name, port, dir, child, log)
    if (options.waitReady === false) return node
    const exited = () => child.exitCode !== null || child.signalCode !== null
    try {
      await waitFor(
        `${name} to be ready on port ${port}`,
        async () => {
          // A process that exited at start ends the wait (waitFor reads a thrown check as "not yet").
          if (exited()) return true
          const response = await fetch(`${node.url}/readyz`, { signal: AbortSignal.timeout(2000) })
          return response.status === 200
        },
        options.readyTimeoutMs ?? 90_000,
      )
      if (exited()) {
        const code = await node.#exited
        throw new HeError('INTERNAL', `${name} exited (${code}) at start:\n${(await node.log()).slice(-2000)}`)
      }
    } catch (error) {
      await node.stop()
      throw error
    }
    return node
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`
  }

  /** `host:port`, for nginx's upstream block. */
  get address(): string {
    return `127.0.0.1:${this.port}`
  }

  /** The process id (benchmarks read its threads' CPU time from /proc). */
  get pid(): number | undefined {
    return this.#child.pid
  }

  /** What the process printed so far. */
  log(): Promise<string> {
    return readFile(join(this.dir, 'server.log'), 'utf8').catch(() => '')
  }

  /** Sends a signal to the process (SIGHUP: reload tokens; SIGKILL: a crash drill). */
  signal(signal: NodeJS.Signals): void {
    this.#child.kill(signal)
  }

  /** Resolves with the exit code once the process has exited. */
  exited(): Promise<number | null> {
    return this.#exited
  }

  /** Graceful shutdown (SIGTERM), SIGKILL after `timeoutMs`; removes the directory. */
  async stop(timeoutMs = 30_000): Promise<number | null> {
    let code: number | null = null
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      this.#child.kill('SIGTERM')
      const timer = setTimeout(() => this.#child.kill('SIGKILL'), timeoutMs)
      code = await this.#exited
      clearTimeout(timer)
    } else {
      code = this.#child.exitCode
    }
    this.#log.end()
    await rm(this.dir, { recursive: true, force: true })
    return code
  }
}

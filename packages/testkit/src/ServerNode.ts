import { type ChildProcess, spawn } from 'node:child_process'
import { createWriteStream, type WriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HeError } from '@sealbox/he-core'
import { freePort } from './freePort.ts'
import { BUILT_MAIN, SERVER_SETTING_NAMES, SOURCE_MAIN } from './serverApp.ts'
import { waitFor } from './waitFor.ts'

/** Options of one sealbox node process. */
export interface ServerNodeOptions {
  /**
   * Settings as environment variables (`MODE`, `EXECUTOR`, `WORKERS`, …); one given as
   * `undefined` stays unset, so the server's default applies. PORT and HOST are set here.
   */
  env?: Record<string, string | undefined>
  /** Serve this DATA_DIR and keep it on `stop()` (a restart); by default a fresh one, removed on `stop()`. */
  dataDir?: string
  /** Serve the built sandbox from this directory at `/` (WEB_DIST, also settable in `env`); by default none. */
  webDist?: string
  /** Command-line flags after `src/main.ts`. */
  args?: readonly string[]
  /** How long to wait for `/readyz`. */
  readyTimeoutMs?: number
  /** A name for logs and failure messages. */
  name?: string
  /** `source` (default): `node --conditions=@sealbox/source src/main.ts`; `built`: `node dist/main.js` (build first). */
  entry?: 'source' | 'built'
  /** The built `main.js` that `entry: 'built'` runs (a copy of the checkout's); default: this checkout's, BUILT_MAIN. */
  builtMain?: string
  /** Keep HOST as given in `env` instead of 127.0.0.1 (the node is still reached on 127.0.0.1). */
  keepHost?: boolean
  /** A fixed port (a node restarted where nginx expects it); default: a free one. */
  port?: number
  /** Wait for `/readyz` (default); false returns once the process is spawned (start-up tests). */
  waitReady?: boolean
}

/** What a `node src/main.ts` run that ends by itself printed, and its exit code. */
export interface MainRun {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * The environment a server process starts with: ours minus every server setting (so
 * vitest's own `MODE=test`, say, never reaches it), then `env` (`undefined` unsets).
 */
export function serverEnv(env: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env }
  for (const key of SERVER_SETTING_NAMES) delete out[key]
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete out[key]
    else out[key] = value
  }
  return out
}

function spawnMain(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  entry: 'source' | 'built' = 'source',
  builtMain = BUILT_MAIN,
): ChildProcess {
  const main = entry === 'built' ? [builtMain] : ['--conditions=@sealbox/source', SOURCE_MAIN]
  // The IPC channel is how the node notices this process going, however it goes
  // (main.ts shuts down on 'disconnect'): a killed test run leaves no server behind.
  return spawn(process.execPath, [...main, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  })
}

/**
 * One real sealbox server process (`node --conditions=@sealbox/source src/main.ts`, or
 * the built `node dist/main.js`) on a free (or given) loopback port, with its own data directory and log file; resolves once
 * `/readyz` says its workers are warm. `stop()` sends SIGTERM (graceful shutdown) and
 * removes the directory. The only way tests and benchmarks start a server process.
 */
export class ServerNode {
  readonly name: string
  readonly port: number
  /** This node's own directory (its log, and DATA_DIR unless one was given). */
  readonly dir: string
  readonly dataDir: string
  readonly #exited: Promise<number | null>
  readonly #child: ChildProcess
  readonly #log: WriteStream
  #output = ''
  #stopping: Promise<number | null> | undefined

  private constructor(name: string, port: number, dir: string, dataDir: string, child: ChildProcess, log: WriteStream) {
    this.name = name
    this.port = port
    this.dir = dir
    this.dataDir = dataDir
    this.#child = child
    this.#log = log
    const collect = (chunk: Buffer) => {
      this.#output += chunk.toString()
      log.write(chunk)
    }
    child.stdout?.on('data', collect)
    child.stderr?.on('data', collect)
    // 'close', not 'exit': by then both pipes are drained, so output() holds the last line.
    this.#exited = new Promise((resolve) => child.once('close', (code) => resolve(code)))
  }

  static async start(options: ServerNodeOptions = {}): Promise<ServerNode> {
    const name = options.name ?? 'node'
    const dir = await mkdtemp(join(tmpdir(), `sealbox-${name}-`))
    const dataDir = options.dataDir ?? join(dir, 'data')
    const port = options.port ?? (await freePort())
    const log = createWriteStream(join(dir, 'server.log'))
    const child = spawnMain(
      options.args ?? [],
      serverEnv({
        LOG_LEVEL: 'warn',
        WEB_DIST: '',
        // The event-loop guard sheds load by wall-clock delay, which a busy test machine
        // trips on its own (a descheduled process sees seconds of "delay"): off unless a
        // test sets it. Queue-depth and cost admission, which the tests do check, stay on.
        MAX_EVENT_LOOP_DELAY_MS: '0',
        ...options.env,
        ...(options.webDist === undefined ? {} : { WEB_DIST: options.webDist }),
        PORT: String(port),
        ...(options.keepHost && options.env?.HOST ? {} : { HOST: '127.0.0.1' }),
        DATA_DIR: dataDir,
      }),
      options.entry,
      options.builtMain,
    )
    const node = new ServerNode(name, port, dir, dataDir, child, log)
    if (options.waitReady === false) return node
    let exitCode: number | null | undefined
    void node.#exited.then((code) => {
      exitCode = code
    })
    try {
      await waitFor(
        `${name} to be ready on port ${port}`,
        async () => {
          if (exitCode !== undefined) {
            throw new HeError('INTERNAL', `${name} exited (${exitCode}) at start:\n${node.output().slice(-2000)}`)
          }
          const response = await fetch(`${node.url}/readyz`, { signal: AbortSignal.timeout(2000) })
          return response.status === 200
        },
        options.readyTimeoutMs ?? 90_000,
      )
    } catch (error) {
      await node.stop()
      throw error
    }
    return node
  }

  /**
   * Runs `node src/main.ts args` to its end (`--help`, a refused setting): resolves with
   * its exit code and output. One still running after `timeoutMs` got past its
   * configuration and is killed (the caller's assertion on the code then fails).
   */
  static async run(args: readonly string[], env: Record<string, string | undefined> = {}, timeoutMs = 60_000) {
    const child = spawnMain(args, serverEnv({ PORT: '0', HOST: '127.0.0.1', ...env }))
    let stdout = ''
    let stderr = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    // A timeout, not an ordering: a run that does not end by itself is the failure reported.
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
    clearTimeout(timer)
    return { code, stdout, stderr } satisfies MainRun
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`
  }

  /** `host:port`, for nginx's upstream block. */
  get address(): string {
    return `127.0.0.1:${this.port}`
  }

  /** True until the process exits (however it ends: stop(), a signal, a crash). */
  get running(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null
  }

  /** The process id (benchmarks read its threads' CPU time from /proc). */
  get pid(): number | undefined {
    return this.#child.pid
  }

  /** What the process printed so far (stdout and stderr, interleaved as they came). */
  output(): string {
    return this.#output
  }

  /** What the process printed so far (also in `dir/server.log`). */
  log(): Promise<string> {
    return Promise.resolve(this.#output)
  }

  /** Sends a signal without waiting (SIGTERM: graceful shutdown; SIGHUP: reload tokens; SIGKILL: a crash drill); `exited()` says when it is over. */
  signal(signal: NodeJS.Signals): void {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill(signal)
  }

  /** Resolves with the exit code (null after a signal) once the process has exited and its output is read. */
  exited(): Promise<number | null> {
    return this.#exited
  }

  /**
   * Graceful shutdown (`signal`, SIGTERM by default), SIGKILL after `timeoutMs`; resolves
   * with the exit code and removes the node's directory (a given DATA_DIR is kept).
   */
  stop(timeoutMs = 30_000, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    // Once: a test's own stop() and its clean-up after a failure may both ask.
    this.#stopping ??= this.#stop(timeoutMs, signal)
    return this.#stopping
  }

  async #stop(timeoutMs: number, signal: NodeJS.Signals): Promise<number | null> {
    this.signal(signal)
    // A timeout, not an ordering: a process that ignores the signal is killed.
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), timeoutMs)
    const code = await this.#exited
    clearTimeout(timer)
    await new Promise<void>((resolve) => this.#log.end(resolve))
    await rm(this.dir, { recursive: true, force: true })
    return code
  }
}

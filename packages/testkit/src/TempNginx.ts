import { type ChildProcess, spawn } from 'node:child_process'
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { HeError } from '@sealbox/he-core'
import { isRoot, nginxBinary } from './debianTools.ts'
import { freePort } from './freePort.ts'
import { runCommand } from './runCommand.ts'
import { waitFor } from './waitFor.ts'

/** The repository's deploy/nginx directory: the tests run the configuration users deploy. */
export const DEPLOY_NGINX_DIR = fileURLToPath(new URL('../../../deploy/nginx/', import.meta.url))

/** Options of a throwaway nginx in front of sealbox nodes. */
export interface TempNginxOptions {
  /** `host:port` of each sealbox node. */
  nodes: readonly string[]
  maxBody?: string
  readTimeout?: string
  /** More render.mjs flags (`--metrics-allow 127.0.0.1`, `--hsts`). */
  renderArgs?: readonly string[]
}

/**
 * nginx from Debian's package with its own configuration in a temporary directory:
 * the site rendered from deploy/nginx/sealbox-site.conf.template by deploy/nginx/render.mjs,
 * wrapped in a minimal main config (`daemon off`, two workers like a production host's
 * several, logs and temp files in the directory), listening on a free loopback port.
 * `stop()` ends it and removes the directory.
 */
export class TempNginx {
  readonly dir: string
  readonly port: number
  /** The site's `fail_timeout` in seconds: how long nginx skips a node after `max_fails` failures. */
  readonly failTimeoutSeconds: number
  readonly #process: ChildProcess
  #exited: Promise<void>

  private constructor(dir: string, port: number, failTimeoutSeconds: number, child: ChildProcess) {
    this.dir = dir
    this.port = port
    this.failTimeoutSeconds = failTimeoutSeconds
    this.#process = child
    this.#exited = new Promise((resolve) => child.once('exit', () => resolve()))
  }

  /** Renders the site for `options.nodes` on a free loopback port, then starts it as `startSite` does. */
  static async start(options: TempNginxOptions): Promise<TempNginx> {
    const port = await freePort()
    const args = ['--listen', `127.0.0.1:${port}`, '--max-body', options.maxBody ?? '80m']
    args.push('--read-timeout', options.readTimeout ?? '40s')
    for (const node of options.nodes) args.push('--node', node)
    args.push(...(options.renderArgs ?? []))
    const site = await runCommand(process.execPath, [join(DEPLOY_NGINX_DIR, 'render.mjs'), ...args])
    return TempNginx.startSite(site.stdout, port)
  }

  /**
   * Starts nginx with a site rendered elsewhere (the deploy doc's own render command),
   * which listens on `port`: checks the configuration with `nginx -t`, starts nginx and
   * waits until the port accepts connections (plain HTTP or TLS alike).
   */
  static async startSite(site: string, port: number): Promise<TempNginx> {
    const binary = nginxBinary()
    const dir = await mkdtemp(join(tmpdir(), 'sealbox-nginx-'))
    try {
      // As root, nginx's workers run as `nobody`: they must reach the temp directories.
      if (isRoot()) await chmod(dir, 0o755)
      await writeFile(join(dir, 'sealbox-site.conf'), site)
      await writeFile(join(dir, 'nginx.conf'), mainConfig(dir))
      const confArgs = ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')]
      await runCommand(binary, ['-t', '-q', ...confArgs])
      const child = spawn(binary, confArgs, { stdio: ['ignore', 'ignore', 'pipe'] })
      let stderr = ''
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString()
      })
      const failTimeout = Number(/fail_timeout=(\d+)s/.exec(site)?.[1] ?? Number.NaN)
      if (!Number.isInteger(failTimeout)) throw new HeError('INTERNAL', 'the site names no fail_timeout=<n>s')
      const nginx = new TempNginx(dir, port, failTimeout, child)
      let exited = false
      child.once('exit', () => {
        exited = true
      })
      await waitFor('nginx to listen', async () => {
        if (exited) throw new HeError('INTERNAL', `nginx exited at start: ${stderr || (await nginx.errorLog())}`)
        return accepts(port)
      })
      return nginx
    } catch (error) {
      await rm(dir, { recursive: true, force: true })
      throw error
    }
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`
  }

  /**
   * Resolves once nginx hands requests to the node at `address` again. After a restart
   * the node answers at once, but nginx may still count it failed (`max_fails` within
   * `fail_timeout`) and skip it; requests without a key set go to a random node, so some
   * `/healthz` through nginx reaches it as soon as nginx treats it as live.
   */
  async untilRoutesTo(address: string, timeoutMs = 60_000): Promise<void> {
    await waitFor(
      `nginx to route to ${address} again`,
      async () => {
        const response = await fetch(`${this.url}/healthz`, { signal: AbortSignal.timeout(5000) })
        await response.arrayBuffer()
        const answered = (response.headers.get('x-sealbox-node') ?? '').split(',').at(-1)?.trim()
        return response.ok && answered === address
      },
      timeoutMs,
    )
  }

  /**
   * Resolves once nginx treats the node at `address` as healthy again: a whole
   * `fail_timeout` (plus the second nginx's clock rounds to) has passed since the last
   * request that failed on it, as nginx's access log shows, and a request through nginx
   * has then reached it (which resets nginx's failure count). Until then nginx may skip
   * the node, or count it down after a single further failure.
   */
  async untilHealthy(address: string, timeoutMs = 90_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const failed = await this.lastFailureOf(address)
      if (failed !== undefined) {
        const retriedAt = (Math.floor(failed) + this.failTimeoutSeconds + 1) * 1000
        await waitFor(
          `nginx's fail_timeout for ${address} to pass`,
          () => Date.now() >= retriedAt,
          Math.max(0, deadline - Date.now()),
        )
      }
      await this.untilRoutesTo(address, Math.max(0, deadline - Date.now()))
      // A failure logged meanwhile starts the window again.
      if ((await this.lastFailureOf(address)) === failed) return
      if (Date.now() > deadline) throw new HeError('TIMEOUT', `nginx kept failing requests on ${address}`)
    }
  }

  /**
   * When nginx last finished a request that failed on the node at `address` (a refused
   * connection, a timeout, a 502/503/504 from it), in seconds since the epoch from the
   * access log; undefined if none did.
   */
  async lastFailureOf(address: string): Promise<number | undefined> {
    let last: number | undefined
    for (const line of (await this.accessLog()).split('\n')) {
      const match = /^(\d+\.\d+) .* node=(\S.*?) upstream_status=(\S.*?) keyset=/.exec(line)
      if (!match) continue
      const addresses = (match[2] as string).split(', ')
      const statuses = (match[3] as string).split(', ')
      addresses.forEach((tried, i) => {
        if (tried === address && /^50[234]$/.test(statuses[i] ?? '')) last = Number(match[1])
      })
    }
    return last
  }

  /** nginx's access log (one line per request: when it ended, the nodes tried and what each answered). */
  accessLog(): Promise<string> {
    return readFile(join(this.dir, 'access.log'), 'utf8').catch(() => '')
  }

  errorLog(): Promise<string> {
    return readFile(join(this.dir, 'error.log'), 'utf8').catch(() => '')
  }

  /** Stops nginx (SIGQUIT: graceful) and removes its directory. */
  async stop(): Promise<void> {
    if (this.#process.exitCode === null && this.#process.signalCode === null) {
      this.#process.kill('SIGQUIT')
      // A timeout, not an ordering: an nginx that ignores SIGQUIT is killed.
      const timer = setTimeout(() => this.#process.kill('SIGKILL'), 5000)
      await this.#exited
      clearTimeout(timer)
    }
    await rm(this.dir, { recursive: true, force: true })
  }
}

function mainConfig(dir: string): string {
  return `# sealbox test nginx (generated)
daemon off;
master_process on;
# Several workers, as on a production host (Debian: one per core): the site's upstream
# zone is what makes them share which nodes failed.
worker_processes 2;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
    log_format sealbox '$msec $request_method $uri $status node=$upstream_addr upstream_status=$upstream_status keyset="$sealbox_path_keyset$arg_keySet"';
    access_log ${dir}/access.log sealbox;
    client_body_temp_path ${dir}/client_body;
    proxy_temp_path ${dir}/proxy;
    fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi;
    scgi_temp_path ${dir}/scgi;
    default_type application/octet-stream;
    include ${dir}/sealbox-site.conf;
}
`
}

/** True once something accepts TCP connections on 127.0.0.1:`port`. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import process from 'node:process'
import { promisify } from 'node:util'
import type { SearchLinkRates } from '@sealbox/he-core/search'
import { freePort, waitFor } from '@sealbox/testkit'
import { BenchError } from '../BenchError.ts'

/*
 * A shaped link between the benchmark's client and a real server: Toxiproxy (Shopify's TCP
 * proxy for latency and bandwidth faults), built from the Go module proxy with `go install`
 * into packages/bench/.cache the first time. This kernel has no netem; Toxiproxy shapes in
 * user space, per connection: half the round trip of latency each way, and a bandwidth
 * toxic per direction (its rate is in KB/s, 1 KB = 1000 bytes: Mbit/s × 125).
 */

const run = promisify(execFile)
const MODULE = 'github.com/Shopify/toxiproxy/v2/cmd/server@v2.12.0'

/** The toxiproxy-server binary: `TOXIPROXY_SERVER`, else built once into `cacheDir` by `go install`. */
export async function ensureToxiproxy(cacheDir: string, log: (line: string) => void): Promise<string> {
  const given = process.env.TOXIPROXY_SERVER
  if (given) return given
  const bin = join(cacheDir, 'toxiproxy', 'bin')
  const server = join(bin, 'server')
  if (existsSync(server)) return server
  log(`building Toxiproxy with go install ${MODULE} (once, into ${bin})`)
  await run('go', ['install', MODULE], { env: { ...process.env, GOBIN: bin }, timeout: 900_000 })
  return server
}

/** A running Toxiproxy with one proxy per shaped link. */
export class ToxiproxyLinks implements AsyncDisposable {
  readonly #child: ChildProcess
  readonly #api: string

  private constructor(child: ChildProcess, api: string) {
    this.#child = child
    this.#api = api
  }

  /**
   * Toxiproxy built (or found) and started, or undefined when it cannot be: the caller then
   * measures over loopback and adds the link by the model, and its rows say so.
   */
  static async startOrModel(cacheDir: string, log: (line: string) => void): Promise<ToxiproxyLinks | undefined> {
    try {
      return await ToxiproxyLinks.start(await ensureToxiproxy(cacheDir, log))
    } catch (error) {
      log(`Toxiproxy unavailable (${error instanceof Error ? error.message : String(error)}): modelled links`)
      return undefined
    }
  }

  static async start(binary: string): Promise<ToxiproxyLinks> {
    const port = await freePort()
    const child = spawn(binary, ['-host', '127.0.0.1', '-port', String(port)], { stdio: 'ignore' })
    const api = `http://127.0.0.1:${port}`
    const links = new ToxiproxyLinks(child, api)
    // A binary that cannot be run fails the start (and `startOrModel` falls back to the model), not the process.
    const spawnFailed = new Promise<never>((_, reject) =>
      child.once('error', (error) =>
        reject(
          new BenchError('PROCESS_FAILED', `Toxiproxy (${binary}) did not start: ${error.message}`, { cause: error }),
        ),
      ),
    )
    await Promise.race([
      spawnFailed,
      waitFor('Toxiproxy to answer', async () => (await fetch(`${api}/version`)).ok, 20_000),
    ])
    return links
  }

  async #post(path: string, body: unknown): Promise<void> {
    const response = await fetch(`${this.#api}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    if (!response.ok)
      throw new BenchError('PROCESS_FAILED', `Toxiproxy ${path}: ${response.status} ${await response.text()}`)
  }

  /** A proxy to `upstreamPort` shaped like `link`; returns the URL to reach the server through it. */
  async shape(name: string, upstreamPort: number, link: SearchLinkRates): Promise<string> {
    const port = await freePort()
    await this.#post('/proxies', { name, listen: `127.0.0.1:${port}`, upstream: `127.0.0.1:${upstreamPort}` })
    const half = Math.round(link.rttMs / 2)
    for (const stream of ['upstream', 'downstream'] as const) {
      await this.#post(`/proxies/${name}/toxics`, {
        name: `${stream}-latency`,
        type: 'latency',
        stream,
        attributes: { latency: half, jitter: 0 },
      })
      const mbps = stream === 'upstream' ? link.upMbps : link.downMbps
      await this.#post(`/proxies/${name}/toxics`, {
        name: `${stream}-bandwidth`,
        type: 'bandwidth',
        stream,
        attributes: { rate: Math.round(mbps * 125) },
      })
    }
    return `http://127.0.0.1:${port}`
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.#child.kill('SIGTERM')
  }
}

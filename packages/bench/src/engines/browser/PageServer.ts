import { randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, normalize, sep } from 'node:path'
import { PAGE_API } from '../../page/pageProtocol.ts'
import type { BenchPlan } from '../../protocol/benchProtocol.ts'

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.map': 'application/json',
}

/**
 * Cross-origin isolation: without COOP/COEP, Firefox and WebKit round `performance.now()`
 * to 1 ms; isolated, the step is 5–20 µs. `application/wasm` lets the glue stream-compile.
 */
const ISOLATION_HEADERS = {
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-embedder-policy': 'require-corp',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
}

interface Session {
  plan: BenchPlan
  onEvent: (raw: unknown) => void
}

/**
 * A tiny static server for the built benchmark page on 127.0.0.1 only, plus the page's
 * API: `GET /api/plan?run=` hands out a plan, `POST /api/events?run=` streams the
 * harness events back to whichever engine opened that run.
 */
export class PageServer {
  readonly #root: string
  readonly #sessions = new Map<string, Session>()
  #server: Server | undefined
  #port = 0

  constructor(root: string) {
    this.#root = normalize(root + sep)
  }

  async start(): Promise<void> {
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, ISOLATION_HEADERS)
        res.end(String(error))
      })
    })
    const server = this.#server
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(0, '127.0.0.1', () => resolve())
    })
    this.#port = (server.address() as AddressInfo).port
  }

  /** Registers a run; the returned URL opens the page for it. */
  open(plan: BenchPlan, onEvent: (raw: unknown) => void): { url: string; close: () => void } {
    const run = randomUUID()
    this.#sessions.set(run, { plan, onEvent })
    return {
      url: `http://127.0.0.1:${this.#port}/index.html?run=${run}`,
      close: () => this.#sessions.delete(run),
    }
  }

  async stop(): Promise<void> {
    const server = this.#server
    if (!server) return
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    this.#server = undefined
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const session = this.#sessions.get(url.searchParams.get('run') ?? '')
    if (url.pathname === PAGE_API.plan) {
      if (!session) return this.#send(res, 404, 'unknown run')
      return this.#send(res, 200, JSON.stringify(session.plan), 'application/json')
    }
    if (url.pathname === PAGE_API.events && req.method === 'POST') {
      const body = await readBody(req)
      if (!session) return this.#send(res, 404, 'unknown run')
      session.onEvent(JSON.parse(body))
      return this.#send(res, 204, '')
    }
    const file = normalize(join(this.#root, decodeURIComponent(url.pathname)))
    if (!file.startsWith(this.#root)) return this.#send(res, 403, 'forbidden')
    try {
      const bytes = await readFile(file)
      res.writeHead(200, {
        ...ISOLATION_HEADERS,
        'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
      })
      res.end(bytes)
    } catch {
      this.#send(res, 404, 'not found')
    }
  }

  #send(res: ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8'): void {
    res.writeHead(status, { ...ISOLATION_HEADERS, 'content-type': type })
    res.end(body)
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

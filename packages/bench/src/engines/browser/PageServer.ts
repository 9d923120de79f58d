import { randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, normalize, sep } from 'node:path'
import { PAGE_API } from '../../page/pageProtocol.ts'
import type { BenchPlan, HarnessCommand } from '../../protocol/benchProtocol.ts'

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
  commands: HarnessCommand[]
  /** Long-poll requests waiting for the next command. */
  waiting: Array<{ after: number; res: ServerResponse }>
}

/** A held `GET /api/command` answers 204 after this long, and the page asks again. */
const LONG_POLL_MS = 20_000

/**
 * A tiny static server for the built benchmark page on 127.0.0.1 only, plus the page's
 * API: `GET /api/plan?run=` hands out a plan, `GET /api/command?run=&after=` long-polls
 * the next harness command, `POST /api/events?run=` streams the harness events back to
 * whichever engine opened that run.
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

  /** Registers a run; the returned URL opens the page for it, `send` queues a command for it. */
  open(
    plan: BenchPlan,
    onEvent: (raw: unknown) => void,
  ): { url: string; send: (command: HarnessCommand) => void; close: () => void } {
    const run = randomUUID()
    const session: Session = { plan, onEvent, commands: [], waiting: [] }
    this.#sessions.set(run, session)
    return {
      url: `http://127.0.0.1:${this.#port}/index.html?run=${run}`,
      send: (command) => {
        session.commands.push(command)
        for (const waiter of session.waiting.splice(0)) this.#answerCommand(session, waiter.after, waiter.res)
      },
      close: () => {
        for (const waiter of session.waiting.splice(0)) this.#send(waiter.res, 410, 'run closed')
        this.#sessions.delete(run)
      },
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
    if (url.pathname === PAGE_API.command) {
      if (!session) return this.#send(res, 410, 'unknown run')
      const after = Number(url.searchParams.get('after') ?? '-1')
      if (this.#answerCommand(session, after, res)) return
      const waiter = { after, res }
      session.waiting.push(waiter)
      const timer = setTimeout(() => {
        const index = session.waiting.indexOf(waiter)
        if (index >= 0) {
          session.waiting.splice(index, 1)
          this.#send(res, 204, '')
        }
      }, LONG_POLL_MS)
      res.on('close', () => clearTimeout(timer))
      return
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

  /** Answers with the first command after `after`, if there is one. */
  #answerCommand(session: Session, after: number, res: ServerResponse): boolean {
    const next = session.commands.find((command) => command.seq > after)
    if (!next) return false
    this.#send(res, 200, JSON.stringify(next), 'application/json')
    return true
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

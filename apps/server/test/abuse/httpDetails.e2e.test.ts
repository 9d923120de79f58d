import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { duringAttack, expectHealthy, type HealthStats, idleHealth, rawRequest } from './abuseHarness.ts'
import { type AbuseServer, spawnAbuseServer } from './abuseServer.ts'

/*
 * HTTP details: a wrong method on a known path is 405 with Allow, a very
 * long URL is 414 in our error shape without the URL echoed, and a body dripped a few
 * bytes a second is cut at the request deadline (REQUEST_TIMEOUT_MS), not 40–50 s later.
 */

const FILE = 'httpDetails.e2e.test.ts'
/** Short, so the drip test is quick; the bound below is derived from it. */
const REQUEST_TIMEOUT_MS = 2000

interface Dripped {
  /** From the first header byte to the answer (or the close). */
  elapsedMs: number
  status: number | undefined
  text: string
}

/** Sends `head` then one byte of body every `everyMs` until the server answers or closes. */
function drip(url: string, head: string, everyMs: number): Promise<Dripped> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    let started = 0
    let received = ''
    let timer: NodeJS.Timeout | undefined
    socket.setEncoding('latin1')
    socket.on('connect', () => {
      started = performance.now()
      socket.write(head)
      timer = setInterval(() => {
        if (socket.writable) socket.write('x')
      }, everyMs)
    })
    socket.on('data', (chunk: string) => {
      received += chunk
    })
    socket.on('close', () => {
      clearInterval(timer)
      const status = /^HTTP\/1\.1 (\d{3})/.exec(received)?.[1]
      resolve({ elapsedMs: performance.now() - started, status: status ? Number(status) : undefined, text: received })
    })
    // A reset after the answer is fine: the answer was read before it.
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error)
    })
  })
}

describe('HTTP details', () => {
  let server: AbuseServer
  let idle: HealthStats
  let token: string

  beforeAll(async () => {
    server = await spawnAbuseServer(
      { REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), FAULT_INJECTION: 'true' },
      { name: 'http' },
    )
    idle = await idleHealth(server.url)
    const session = await fetch(`${server.url}/api/v1/session`, { method: 'POST' })
    token = ((await session.json()) as { token: string }).token
  }, 120_000)

  afterAll(() => server?.stop())

  it('answers a wrong method on a known path 405 with Allow, an unknown path 404', async () => {
    const wrong = await rawRequest(server.url, { method: 'POST', path: '/api/v1/keysets/k' })
    expect(wrong.status).toBe(405)
    expect(wrong.headers.allow).toBe('DELETE, GET, HEAD, PUT')
    expect(JSON.parse(wrong.text).error).toMatchObject({
      code: 'METHOD_NOT_ALLOWED',
      details: { allow: ['DELETE', 'GET', 'HEAD', 'PUT'] },
    })
    const health = await rawRequest(server.url, { method: 'DELETE', path: '/healthz' })
    expect([health.status, health.headers.allow]).toEqual([405, 'GET, HEAD'])
    const config = await rawRequest(server.url, { method: 'PUT', path: '/api/v1/search/config' })
    expect([config.status, config.headers.allow]).toEqual([405, 'GET, HEAD'])
    const unknown = await rawRequest(server.url, { method: 'GET', path: '/api/v1/nothing-here' })
    expect([unknown.status, JSON.parse(unknown.text).error.code]).toEqual([404, 'NOT_FOUND'])
    expect(unknown.headers.allow).toBeUndefined()
  })

  it('answers a 10,000-character URL 414 in our error shape without echoing it', async () => {
    const long = 'a'.repeat(10_000)
    const half = 'a'.repeat(5000)
    for (const path of [`/api/v1/keysets/${long}`, `/api/v1/${long}`, `/${half}?q=${half}`]) {
      const answer = await rawRequest(server.url, { method: 'GET', path })
      expect(answer.status).toBe(414)
      const body = JSON.parse(answer.text) as { error: { code: string; message: string; hint: string } }
      expect(body.error.code).toBe('URI_TOO_LONG')
      expect(body.error.message).toMatch(/at most 4096/)
      expect(answer.text).not.toContain('aaaaaaaaaa')
      expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    }
    // Past Node's 16 KiB limit on the request head, Node refuses it: in our shape too.
    const huge = await rawRequest(server.url, { method: 'GET', path: `/${'a'.repeat(20_000)}` })
    expect(huge.status).toBe(431)
    expect(JSON.parse(huge.text).error.code).toBe('HEADERS_TOO_LARGE')
    expect(huge.text).not.toContain('aaaaaaaaaa')
  })

  it('cuts a dripped body at the request deadline; /healthz stays fast meanwhile', { timeout: 60_000 }, async () => {
    // Authenticated, so the body is awaited (an anonymous one is refused before it: authBeforeBody).
    const head = `PUT /api/v1/keysets/drip HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\ncontent-type: application/octet-stream\r\ncontent-length: 100000\r\n\r\n`
    const { result, health } = await duringAttack(server.url, () =>
      Promise.all([drip(server.url, head, 100), drip(server.url, head, 100), drip(server.url, head, 100)]),
    )
    for (const dripped of result) {
      expect(dripped.status).toBe(408)
      expect(dripped.text).toContain('"code":"REQUEST_TIMEOUT"')
      expect(dripped.text).toContain(`${REQUEST_TIMEOUT_MS} ms (REQUEST_TIMEOUT_MS)`)
      // Not before the deadline, and within half of it after (Node checks connections every 100 ms here).
      expect(dripped.elapsedMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50)
      expect(dripped.elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS * 1.5)
    }
    const slowest = Math.max(...result.map((dripped) => dripped.elapsedMs))
    expectHealthy({
      attack: 'HTTP details',
      test: `${FILE} › dripped body cut at the deadline (REQUEST_TIMEOUT_MS=${REQUEST_TIMEOUT_MS}, slowest cut ${Math.round(slowest)} ms)`,
      answer: '408 REQUEST_TIMEOUT',
      during: health,
      idle,
    })
  })

  it('cuts dripped headers at the same deadline', { timeout: 60_000 }, async () => {
    const dripped = await drip(server.url, 'GET /healthz HTTP/1.1\r\nhost: x\r\nx-slow: ', 100)
    expect(dripped.status).toBe(408)
    expect(dripped.elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS * 1.5)
  })

  // Last: the job that overstays is killed with its worker.
  it('counts the time the body took against the job: the whole request ends at the deadline', {
    timeout: 60_000,
  }, async () => {
    // A body that takes a good part of the deadline (20 bytes over ~0.8 s, leaving the test's
    // own timers 1.2 s of slack on a busy machine), then a job that would hold the worker 30 s:
    // the job gets only what is left of REQUEST_TIMEOUT_MS.
    const body = '{"pad":"0123456789"}'
    const head = `POST /api/v1/_faults/slow?ms=30000 HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`
    const { hostname, port } = new URL(server.url)
    const answer = await new Promise<{ elapsedMs: number; text: string }>((resolve, reject) => {
      const socket = connect(Number(port), hostname)
      let started = 0
      let received = ''
      let sent = 0
      let timer: NodeJS.Timeout | undefined
      socket.setEncoding('latin1')
      socket.on('connect', () => {
        started = performance.now()
        socket.write(head)
        timer = setInterval(
          () => {
            // An answer may come before the whole body (a 408 when the body itself overstays).
            if (sent < body.length && socket.writable) socket.write(body[sent++] as string)
            else clearInterval(timer)
          },
          (REQUEST_TIMEOUT_MS * 0.4) / body.length,
        )
      })
      socket.on('data', (chunk: string) => {
        received += chunk
        if (received.includes('\r\n\r\n') && received.includes('}}')) {
          clearInterval(timer)
          socket.end()
        }
      })
      socket.on('close', () => {
        clearInterval(timer)
        resolve({ elapsedMs: performance.now() - started, text: received })
      })
      socket.on('error', reject)
    })
    expect(answer.text.split(' ')[1]).toBe('504')
    expect(answer.text).toContain('"code":"TIMEOUT"')
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50)
    expect(answer.elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS * 1.5)
  })
})

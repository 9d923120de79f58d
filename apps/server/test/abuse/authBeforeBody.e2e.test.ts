import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { duringAttack, expectHealthy, type HealthStats, idleHealth, rawRequest, rssBytes } from './abuseHarness.ts'
import { type AbuseServer, spawnAbuseServer } from './abuseServer.ts'

/*
 * Auth before body: authentication runs in an onRequest hook, before the body is read. Before
 * the fix, sixteen unauthenticated 60 MiB PUTs were buffered whole and only then
 * refused (RSS 288 MB → 1,058 MB), and a 31 MB unauthenticated evaluate body blocked the
 * loop while it was parsed.
 */

const FILE = 'authBeforeBody.e2e.test.ts'
const MiB = 1024 * 1024

/**
 * Sends a request's headers (with a Content-Length) and only `sent` bytes of its body,
 * then waits for the answer. An answer that arrives proves the server did not wait for
 * (let alone buffer) the rest of the body.
 */
function partialBody(
  url: string,
  options: { method: string; path: string; contentType: string; contentLength: number; sent: number },
): Promise<{ status: number; head: string; closed: boolean }> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    let received = ''
    let headEnd = -1
    socket.setEncoding('latin1')
    socket.on('connect', () => {
      socket.write(
        `${options.method} ${options.path} HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: ${options.contentType}\r\ncontent-length: ${options.contentLength}\r\n\r\n`,
      )
      socket.write(Buffer.alloc(options.sent, 0x7b))
    })
    socket.on('data', (chunk: string) => {
      received += chunk
      if (headEnd < 0) headEnd = received.indexOf('\r\n\r\n')
    })
    // The server closes the connection after its early answer (it will not drain the body).
    socket.on('close', () => {
      if (headEnd < 0) return reject(new Error(`no answer before the connection closed: ${JSON.stringify(received)}`))
      const head = received.slice(0, headEnd)
      resolve({ status: Number(head.split(' ')[1]), head: head.toLowerCase(), closed: true })
    })
    socket.on('error', reject)
  })
}

describe('authentication before the body', () => {
  let server: AbuseServer
  let idle: HealthStats

  beforeAll(async () => {
    server = await spawnAbuseServer({}, { name: 'auth' })
    idle = await idleHealth(server.url)
  }, 120_000)

  afterAll(() => server?.stop())

  it('refuses waves of 16 parallel unauthenticated 60 MiB PUTs with 401 without buffering them', {
    timeout: 120_000,
  }, async () => {
    const pid = server.pid
    const body = new Uint8Array(60 * MiB).fill(0x5a)
    const before = rssBytes(pid)
    let peak = before
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssBytes(pid))
    }, 5)
    const wave = () =>
      Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          rawRequest(server.url, {
            method: 'PUT',
            path: `/api/v1/keysets/attack-${i}`,
            headers: { 'content-type': 'application/octet-stream', 'content-length': body.byteLength },
            body,
          }),
        ),
      )
    // Four waves of sixteen, so the prober sees the attack for more than an instant.
    const { result, health } = await duringAttack(server.url, async () => {
      const answers = []
      for (let i = 0; i < 4; i++) answers.push(...(await wave()))
      return answers
    })
    clearInterval(sampler)
    peak = Math.max(peak, rssBytes(pid))
    expect(result.map((answer) => answer.status)).toEqual(Array(64).fill(401))
    for (const answer of result) {
      expect(JSON.parse(answer.text).error.code).toBe('UNAUTHORIZED')
      expect(answer.headers.connection).toBe('close')
    }
    // Sixteen bodies buffered would be 960 MiB; refused before reading, the server barely moves.
    expect(peak - before).toBeLessThan(50 * 1000 * 1000)
    expectHealthy({
      attack: 'auth before body',
      test: `${FILE} › 4 waves of 16 × 60 MiB unauthenticated PUT (RSS +${((peak - before) / MiB).toFixed(1)} MiB)`,
      answer: '401',
      during: health,
      idle,
    })
  })

  it('answers an unauthenticated 31 MB evaluate with 401 before its body arrives; /healthz stays fast', async () => {
    // Only 64 KiB of the declared 31 MB are ever sent: the 401 comes anyway.
    const early = await partialBody(server.url, {
      method: 'POST',
      path: '/api/v1/evaluate',
      contentType: 'application/octet-stream',
      contentLength: 31_000_000,
      sent: 64 * 1024,
    })
    expect(early.status).toBe(401)
    expect(early.head).toContain('connection: close')
    expect(early.head).toMatch(/x-request-id: [0-9a-f-]{36}/)

    // Whole 31 MB bodies, eight at once: each refused without being parsed, the loop stays free.
    const body = `{"params":{},"program":{},"inputs":{"x":"${'A'.repeat(31_000_000)}"}}`
    const { result, health } = await duringAttack(server.url, () =>
      Promise.all(
        Array.from({ length: 8 }, () =>
          rawRequest(server.url, {
            method: 'POST',
            path: '/api/v1/evaluate',
            headers: { 'content-type': 'application/octet-stream', 'content-length': Buffer.byteLength(body) },
            body,
          }),
        ),
      ),
    )
    expect(result.map((answer) => answer.status)).toEqual(Array(8).fill(401))
    expectHealthy({
      attack: 'auth before body',
      test: `${FILE} › 8 × 31 MB unauthenticated evaluate`,
      answer: '401',
      during: health,
      idle,
    })
  })

  it('keeps the connection of a small refused body, so even fetch reads the 401', async () => {
    // Up to 1 MiB the body is read and dropped (cheap), and every client sees the answer.
    for (let i = 0; i < 4; i++) {
      const answer = await fetch(`${server.url}/api/v1/keysets/small`, {
        method: 'PUT',
        headers: { 'content-type': 'application/octet-stream' },
        body: new Uint8Array(512 * 1024),
      })
      expect(answer.status).toBe(401)
      expect(answer.headers.get('connection')).not.toBe('close')
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED')
    }
  })

  it('refuses a body over the route limit by its Content-Length, before reading it', async () => {
    // The session route takes no body: the small default limit (64 KiB) applies, and the
    // answer comes from the Content-Length alone, with 10 MiB announced and 1 byte sent.
    const { hostname, port } = new URL(server.url)
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => {
        socket.write(
          `POST /api/v1/session HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\ncontent-length: ${10 * MiB}\r\n\r\n{`,
        )
      })
      let received = ''
      socket.setEncoding('latin1')
      socket.on('data', (chunk: string) => {
        received += chunk
      })
      socket.on('close', () => resolve(received))
      socket.on('error', reject)
    })
    expect(answer.split(' ')[1]).toBe('413')
    expect(answer).toContain('"code":"PAYLOAD_TOO_LARGE"')
    expect(answer).toContain(`(${64 * 1024} bytes)`)
  })
})

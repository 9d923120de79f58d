import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { raw } from '../harness.ts'
import { duringAttack, expectHealthy, idleHealth, rawRequest } from './abuseHarness.ts'
import { type AbuseServer, spawnAbuseServer } from './abuseServer.ts'

/*
 * Security headers: the sandbox and its assets had no CSP, nosniff, frame-ancestors or
 * Referrer-Policy and no COOP/COEP, and hashed assets were served max-age=0. Now every
 * answer carries the security headers, the sandbox's hashed files are immutable, its
 * index revalidates, the API is no-store, /docs has its own CSP, and CORS is off unless
 * CORS_ORIGINS names an origin — whose preflight (no token) answers 204.
 *
 * The sandbox here is a stand-in build (index.html plus Vite-style hashed assets), so
 * the test does not depend on apps/web being built; the real build is checked in
 * Chromium by apps/web/e2e/securityHeaders.chromium.e2e.test.ts.
 */

const FILE = 'headers.e2e.test.ts'
const TOKEN = randomBytes(24).toString('hex')
const ALLOWED = 'http://sandbox.example.test:5173'

let plain: AbuseServer
let withCors: AbuseServer
let webDist: string

function server(env: Record<string, string>): Promise<AbuseServer> {
  return spawnAbuseServer({ WEB_DIST: webDist, TOKENS: `acme:${TOKEN}`, ...env }, { name: 'headers' })
}

beforeAll(async () => {
  webDist = await mkdtemp(join(tmpdir(), 'sealbox-abuse-web-'))
  await mkdir(join(webDist, 'assets'))
  await writeFile(
    join(webDist, 'index.html'),
    '<!doctype html><script type="module" src="/assets/index-B9TaCvDW.js"></script>',
  )
  await writeFile(join(webDist, 'assets', 'index-B9TaCvDW.js'), 'export {}\n')
  await writeFile(join(webDist, 'assets', 'seal_throws-C-IzQ_Lp.wasm'), new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]))
  plain = await server({})
  withCors = await server({ CORS_ORIGINS: `${ALLOWED},https://other.example.test` })
})

afterAll(async () => {
  await plain?.stop()
  await withCors?.stop()
  await rm(webDist, { recursive: true, force: true })
})

function csp(headers: Headers): Map<string, string> {
  const directives = new Map<string, string>()
  for (const part of (headers.get('content-security-policy') ?? '').split(';')) {
    const [name, ...values] = part.trim().split(/\s+/)
    if (name) directives.set(name, values.join(' '))
  }
  return directives
}

describe('security headers, caching and CORS', () => {
  it('serves the sandbox with its CSP, COOP/COEP, nosniff, no-referrer, and the caching each file needs', async () => {
    for (const path of ['/', '/index.html', '/assets/index-B9TaCvDW.js', '/assets/seal_throws-C-IzQ_Lp.wasm']) {
      const response = await fetch(`${plain.url}${path}`)
      await response.arrayBuffer()
      expect(response.status, path).toBe(200)
      const headers = response.headers
      const policy = csp(headers)
      expect(policy.get('default-src')).toBe("'self'")
      expect(policy.get('script-src')).toBe("'self' 'wasm-unsafe-eval'")
      expect(policy.get('object-src')).toBe("'none'")
      expect(policy.get('frame-ancestors')).toBe("'none'")
      expect(policy.get('base-uri')).toBe("'self'")
      expect(policy.get('img-src')).toBe("'self' data:")
      expect(policy.has('upgrade-insecure-requests')).toBe(false)
      expect(headers.get('x-content-type-options')).toBe('nosniff')
      expect(headers.get('referrer-policy')).toBe('no-referrer')
      expect(headers.get('cross-origin-opener-policy')).toBe('same-origin')
      expect(headers.get('cross-origin-embedder-policy')).toBe('require-corp')
      expect(headers.get('access-control-allow-origin')).toBeNull()
      const hashed = path.startsWith('/assets/')
      expect(headers.get('cache-control'), path).toBe(hashed ? 'public, max-age=31536000, immutable' : 'no-cache')
    }
    const wasm = await fetch(`${plain.url}/assets/seal_throws-C-IzQ_Lp.wasm`)
    await wasm.arrayBuffer()
    expect(wasm.headers.get('content-type')).toBe('application/wasm')
  })

  it('answers the API, health checks and errors with no-store and the same headers', async () => {
    const session = await raw(`${plain.url}/api/v1/session`, { method: 'POST' })
    expect(session.status).toBe(201)
    const answers = [
      session,
      await raw(`${plain.url}/api/v1/search/config`),
      await raw(`${plain.url}/api/v1/keysets`, { token: TOKEN }),
      await raw(`${plain.url}/api/v1/keysets`),
      await raw(`${plain.url}/healthz`),
      await raw(`${plain.url}/no/such/route`),
    ]
    expect(answers.map((answer) => answer.status)).toEqual([201, 200, 200, 401, 200, 404])
    for (const { headers } of answers) {
      expect(headers.get('cache-control')).toBe('no-store')
      expect(headers.get('x-content-type-options')).toBe('nosniff')
      expect(csp(headers).get('frame-ancestors')).toBe("'none'")
    }
  })

  it('gives /docs its own CSP (Swagger UI styles inline) and keeps the rest', async () => {
    const page = await fetch(`${plain.url}/docs`, { redirect: 'follow' })
    const html = await page.text()
    expect(page.status).toBe(200)
    expect(html).toContain('swagger-ui-bundle.js')
    const policy = csp(page.headers)
    expect(policy.get('style-src')).toBe("'self' 'unsafe-inline'")
    expect(policy.get('script-src')).toBe("'self'")
    expect(policy.get('frame-ancestors')).toBe("'none'")
    expect(page.headers.get('cross-origin-embedder-policy')).toBe('require-corp')
    const spec = await raw(`${plain.url}/docs/json`)
    expect(spec.status).toBe(200)
    expect(Object.keys(spec.json.paths as object)).toContain('/api/v1/session')
    const bundle = await fetch(`${plain.url}/docs/static/swagger-ui-bundle.js`)
    await bundle.arrayBuffer()
    expect(bundle.status).toBe(200)
  })

  it('has no CORS by default: a preflight gets no Access-Control-Allow-Origin', async () => {
    const preflight = await rawRequest(plain.url, {
      method: 'OPTIONS',
      path: '/api/v1/keysets/mine',
      headers: { origin: ALLOWED, 'access-control-request-method': 'PUT' },
    })
    expect(preflight.status).toBeGreaterThanOrEqual(400)
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined()
    const get = await raw(`${plain.url}/api/v1/search/config`, { headers: { origin: ALLOWED } })
    expect(get.status).toBe(200)
    expect(get.headers.get('access-control-allow-origin')).toBeNull()
  })

  it('CORS_ORIGINS: a preflight without a token answers 204 with the methods and headers; only listed origins', async () => {
    const idle = await idleHealth(withCors.url)
    const preflight = () =>
      rawRequest(withCors.url, {
        method: 'OPTIONS',
        path: '/api/v1/keysets/mine',
        headers: {
          origin: ALLOWED,
          'access-control-request-method': 'PUT',
          'access-control-request-headers': 'authorization,content-type,x-sealbox-executor',
        },
      })
    // A page may send one preflight per call: hundreds must stay cheap for everyone else.
    const { result, health } = await duringAttack(withCors.url, async () => {
      const answers = []
      for (let batch = 0; batch < 10; batch++)
        answers.push(...(await Promise.all(Array.from({ length: 20 }, preflight))))
      return answers
    })
    for (const answer of result) {
      expect(answer.status).toBe(204)
      expect(answer.headers['access-control-allow-origin']).toBe(ALLOWED)
      expect(String(answer.headers['access-control-allow-methods'])).toMatch(/PUT/)
      expect(String(answer.headers['access-control-allow-methods'])).toMatch(/DELETE/)
      const allowed = String(answer.headers['access-control-allow-headers']).toLowerCase()
      for (const header of ['authorization', 'content-type', 'x-sealbox-executor', 'x-sealbox-dropped-bits'])
        expect(allowed).toContain(header)
    }
    expectHealthy({
      attack: 'security headers',
      test: `${FILE} › CORS_ORIGINS preflights`,
      answer: `${result.length}×204 with Access-Control-Allow-Origin ${ALLOWED}`,
      during: health,
      idle,
    })

    // The call itself: allowed origin echoed, Server-Timing readable; the token still decides.
    const call = await raw(`${withCors.url}/api/v1/keysets`, { token: TOKEN, headers: { origin: ALLOWED } })
    expect(call.status).toBe(200)
    expect(call.headers.get('access-control-allow-origin')).toBe(ALLOWED)
    expect(call.headers.get('access-control-expose-headers')).toMatch(/server-timing/)
    const anonymous = await raw(`${withCors.url}/api/v1/keysets`, { headers: { origin: ALLOWED } })
    expect(anonymous.status).toBe(401)

    const stranger = await rawRequest(withCors.url, {
      method: 'OPTIONS',
      path: '/api/v1/keysets/mine',
      headers: { origin: 'http://evil.example.test', 'access-control-request-method': 'PUT' },
    })
    expect(stranger.headers['access-control-allow-origin']).toBeUndefined()
    const strangerGet = await raw(`${withCors.url}/api/v1/search/config`, {
      headers: { origin: 'http://evil.example.test' },
    })
    expect(strangerGet.headers.get('access-control-allow-origin')).toBeNull()
  })
})

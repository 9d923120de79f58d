import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { type HeError, SealboxClient } from '@sealbox/he-core/client'
import { DEPLOY_NGINX_DIR, freePort, runCommand, TempNginx } from '@sealbox/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/*
 * The rendered nginx site on its own: when no node answers, the client reads sealbox's
 * JSON error (503 OVERLOADED + a Retry-After that outlasts nginx's fail_timeout), not
 * nginx's HTML page; the TLS variant's HSTS header, HTTP → HTTPS redirect and HTTP/2 are
 * written for the nginx at hand. deployDoc.test.ts runs the TLS variant for real.
 */

function render(args: readonly string[]): Promise<string> {
  return runCommand(process.execPath, [join(DEPLOY_NGINX_DIR, 'render.mjs'), ...args]).then((out) => out.stdout)
}

let nginx: TempNginx

beforeAll(async () => {
  // A node address nobody listens on: every request finds no node.
  nginx = await TempNginx.start({ nodes: [`127.0.0.1:${await freePort()}`], renderArgs: ['--hsts'] })
})

afterAll(async () => {
  await nginx?.stop()
})

describe('the nginx site', () => {
  it('answers JSON 503 OVERLOADED with Retry-After past fail_timeout when no node answers, and HSTS with --hsts', async () => {
    const response = await fetch(`${nginx.url}/api/v1/keysets`, { headers: { authorization: 'Bearer x' } })
    expect(response.status).toBe(503)
    // A client that waits as told comes back after nginx tries the nodes again.
    expect(response.headers.get('retry-after')).toBe(String(nginx.failTimeoutSeconds + 1))
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    const body = (await response.json()) as {
      error: { code: string; message: string; details: Record<string, unknown> }
    }
    expect(body.error.code).toBe('OVERLOADED')
    expect(body.error.details.requestId).toBe(response.headers.get('x-request-id'))
    expect(body.error.details.retryAfterSeconds).toBe(nginx.failTimeoutSeconds + 1)
    // What the nodes answered (a refused connection reads 502), not nginx's own 503.
    expect(body.error.details.upstreamStatus).toMatch(/^502(, 502)*$/)
    expect(body.error.message).not.toContain('503')
    // The client reads it as ours (and, after its retries, throws it with the code).
    const error = await new SealboxClient({ baseUrl: nginx.url, token: 't', retry: { baseDelayMs: 1, maxDelayMs: 1 } })
      .listKeySets()
      .catch((failure: unknown) => failure)
    expect((error as HeError).code).toBe('OVERLOADED')
    const search = await fetch(`${nginx.url}/api/v1/search?keySet=main`, { method: 'POST', body: new Uint8Array(8) })
    expect(search.status).toBe(503)
    expect(search.headers.get('strict-transport-security')).toBe('max-age=31536000')
    await search.arrayBuffer()
  })

  it('renders the TLS variant with a named redirect server, HSTS in every location and HTTP/2 for the nginx at hand', async () => {
    const tls = ['--listen', '443 ssl', '--node', '10.0.0.11:8080', '--hsts', '--server-name', 'sealbox.example.com']
    const site = { stdout: await render([...tls, '--redirect-http', '80']) }
    // Named, so it answers before Debian's default site (default_server on port 80).
    expect(site.stdout).toContain(
      'listen 80;\n    server_name sealbox.example.com;\n    return 301 https://$host$request_uri;',
    )
    // Without a name the redirect would never be reached: refused.
    const unnamed = await render(['--listen', '443 ssl', '--node', '10.0.0.11:8080', '--redirect-http', '80']).catch(
      (error: unknown) => String(error),
    )
    expect(unnamed).toMatch(/--redirect-http needs --server-name/)
    // nginx before 1.25.1 (Debian 12: 1.22) has no `http2` directive.
    const old = await render([...tls, '--http2', '--nginx-version', '1.22.1'])
    expect(old).toContain('listen 443 ssl http2;')
    expect(old).not.toMatch(/^\s*http2 on;/m)
    const current = await render([...tls, '--http2', '--nginx-version', '1.25.1'])
    expect(current).toMatch(/listen 443 ssl;\n\s+http2 on;/)
    // Failure counts shared by every worker.
    expect(site.stdout).toMatch(/upstream sealbox_nodes \{[^}]*zone sealbox_nodes \d+k;/)
    const locations = site.stdout.split('location ').slice(1)
    const proxied = locations.filter((block) => block.includes('proxy_pass'))
    expect(proxied.length).toBe(4)
    for (const block of proxied) expect(block).toContain('Strict-Transport-Security "max-age=31536000" always')
    // /metrics is closed unless --metrics-allow says who may read it.
    expect(site.stdout).toMatch(/location = \/metrics \{\n\s+return 404;/)
    expect(await readFile(join(DEPLOY_NGINX_DIR, 'render.mjs'), 'utf8')).toContain('--metrics-allow')
  })
})

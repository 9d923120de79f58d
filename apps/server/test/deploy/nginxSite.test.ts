import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { type HeError, SealboxClient } from '@sealbox/he-core/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, runCommand } from '../../src/testing/debianTools.ts'
import { DEPLOY_NGINX_DIR, TempNginx } from '../../src/testing/TempNginx.ts'

/*
 * The rendered nginx site on its own: when no node answers, the client reads sealbox's
 * JSON error (503 OVERLOADED + Retry-After), not nginx's HTML page; the TLS variant's
 * HSTS header and HTTP → HTTPS redirect are in the rendered file and accepted by `nginx -t`.
 */

let nginx: TempNginx

beforeAll(async () => {
  // A node address nobody listens on: every request finds no node.
  nginx = await TempNginx.start({ nodes: [`127.0.0.1:${await freePort()}`], renderArgs: ['--hsts'] })
})

afterAll(async () => {
  await nginx?.stop()
})

describe('the nginx site', () => {
  it('answers JSON 503 OVERLOADED with Retry-After when no node answers, and HSTS with --hsts', async () => {
    const response = await fetch(`${nginx.url}/api/v1/keysets`, { headers: { authorization: 'Bearer x' } })
    expect(response.status).toBe(503)
    expect(response.headers.get('retry-after')).toBe('1')
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    const body = (await response.json()) as { error: { code: string; details: { requestId: string } } }
    expect(body.error.code).toBe('OVERLOADED')
    expect(body.error.details.requestId).toBe(response.headers.get('x-request-id'))
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

  it('renders the TLS variant with a redirect server and HSTS in every location', async () => {
    const site = await runCommand(process.execPath, [
      join(DEPLOY_NGINX_DIR, 'render.mjs'),
      ...['--listen', '443 ssl', '--node', '10.0.0.11:8080', '--hsts', '--redirect-http', '80'],
    ])
    expect(site.stdout).toContain('listen 80;\n    return 301 https://$host$request_uri;')
    const locations = site.stdout.split('location ').slice(1)
    const proxied = locations.filter((block) => block.includes('proxy_pass'))
    expect(proxied.length).toBe(4)
    for (const block of proxied) expect(block).toContain('Strict-Transport-Security "max-age=31536000" always')
    // /metrics is closed unless --metrics-allow says who may read it.
    expect(site.stdout).toMatch(/location = \/metrics \{\n\s+return 404;/)
    expect(await readFile(join(DEPLOY_NGINX_DIR, 'render.mjs'), 'utf8')).toContain('--metrics-allow')
  })
})

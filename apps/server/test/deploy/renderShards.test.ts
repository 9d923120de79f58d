import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { DEPLOY_NGINX_DIR, runCommand, ServerNode, TempNginx } from '@sealbox/testkit'
import { describe, expect, it } from 'vitest'
import { docBlock, substitute } from './deployDocKit.ts'

/*
 * render.mjs --shard-node: what it renders for a sharded database, and the mistakes it
 * refuses before nginx ever sees them. (nginx itself runs the rendered site in
 * shardedSearch.test.ts and shardDrills.test.ts.)
 */

function render(args: readonly string[]) {
  return runCommand(process.execPath, [join(DEPLOY_NGINX_DIR, 'render.mjs'), '--listen', '127.0.0.1:8443', ...args])
}

async function refusal(args: readonly string[]): Promise<string> {
  const error = await render(args).then(
    () => undefined,
    (failure: unknown) => failure,
  )
  expect(error).toBeDefined()
  return String((error as { stderr?: string }).stderr ?? error)
}

describe('render.mjs --shard-node', () => {
  it('renders one upstream per shard, its locations and the shard map', async () => {
    const { stdout } = await render([
      '--shard-node',
      '0=10.0.0.11:8080',
      '--shard-node',
      '1=10.0.0.13:8080',
      '--shard-node',
      '0=10.0.0.12:8080',
    ])
    expect(stdout).toMatch(
      /upstream sealbox_shard_0 \{\n {4}hash \$sealbox_route_key consistent;\n {4}zone sealbox_shard_0 64k;\n {4}server 10\.0\.0\.11:8080 [^\n]*\n {4}server 10\.0\.0\.12:8080 /,
    )
    expect(stdout).toContain('upstream sealbox_shard_1 {')
    expect(stdout).toContain(
      `return 200 '{"shards":[{"index":0,"prefix":"/shards/0"},{"index":1,"prefix":"/shards/1"}]}';`,
    )
    expect(stdout).toContain('location /shards/1/ {')
    expect(stdout).toContain('proxy_pass http://sealbox_shard_1$1$is_args$args;')
    // Key sets, sessions and health go to any node: the whole site's upstream lists all three.
    const site = /upstream sealbox_nodes \{[^}]*\}/.exec(stdout)?.[0] ?? ''
    expect(site.match(/server 10\.0\.0\.1\d:8080/g)).toHaveLength(3)
  })

  it('renders the deploy guide’s own shard command', async () => {
    const readme = await readFile(join(DEPLOY_NGINX_DIR, '..', 'README.md'), 'utf8')
    const command = substitute(docBlock(readme, 'shard-nginx'), [
      ['node deploy/nginx/render.mjs', `"${process.execPath}" "${join(DEPLOY_NGINX_DIR, 'render.mjs')}"`],
      ['> /etc/nginx/conf.d/sealbox.conf', ''],
    ])
    const { stdout } = await runCommand('/bin/bash', ['-euo', 'pipefail', '-c', command])
    expect(stdout).toContain('upstream sealbox_shard_0 {')
    expect(stdout).toContain('upstream sealbox_shard_1 {')
    expect(stdout.match(/server 10\.0\.0\.1[1-4]:8080 max_fails/g)).toHaveLength(8)
    expect(stdout).toContain('"prefix":"/shards/1"')
  })

  it('refuses a missing shard, a malformed entry and --node mixed in', async () => {
    expect(await refusal(['--shard-node', '1=10.0.0.13:8080'])).toContain('shard 0 has no node')
    expect(await refusal(['--shard-node', '10.0.0.13:8080'])).toContain('expected <shard>=<host:port>')
    expect(await refusal(['--shard-node', '0=10.0.0.13:8080', '--node', '10.0.0.14:8080'])).toContain('do not mix')
  })
})

const CORS_HEADERS = [
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-max-age',
  'access-control-expose-headers',
  'vary',
]

/** The status and CORS headers of one request: what a browser's CORS check reads. */
async function corsOf(url: string, init: RequestInit): Promise<Record<string, string | number | null>> {
  const response = await fetch(url, init)
  await response.arrayBuffer()
  return Object.fromEntries([
    ['status', response.status],
    ...CORS_HEADERS.map((name) => [name, response.headers.get(name)?.toLowerCase() ?? null]),
  ])
}

describe('render.mjs --cors-origin: nginx’s own answers carry CORS as a node’s do', () => {
  it('sends a node’s CORS headers for its origins, and none for any other', async () => {
    const origin = 'https://app.example.com'
    const node = await ServerNode.start({
      name: 'cors-shard',
      env: {
        MODE: 'production',
        TOKENS: 'alice:alice-token-0123456789abcdefghijKLMNOPQR',
        WORKERS: '1',
        SYNTHETIC_ROWS: '64',
        CORS_ORIGINS: origin,
        SEARCH_SHARD: '0/1',
      },
      readyTimeoutMs: 600_000,
    })
    try {
      const nginx = await TempNginx.start({
        nodes: [],
        renderArgs: ['--shard-node', `0=${node.address}`, '--cors-origin', origin],
      })
      try {
        // The map (nginx's own answer) against the node's config (proxied to the node), same requests.
        const map = `${nginx.url}/api/v1/search/config`
        const nodeConfig = `${nginx.url}/shards/0/api/v1/search/config`
        const preflight = (from: string): RequestInit => ({
          method: 'OPTIONS',
          headers: {
            origin: from,
            'access-control-request-method': 'GET',
            'access-control-request-headers': 'authorization',
          },
        })
        const get = (from: string): RequestInit => ({ headers: { origin: from } })
        const nodeGet = await corsOf(nodeConfig, get(origin))
        expect(nodeGet['access-control-allow-origin']).toBe(origin)
        expect(await corsOf(map, get(origin))).toEqual(nodeGet)
        const nodePreflight = await corsOf(nodeConfig, preflight(origin))
        expect(nodePreflight).toMatchObject({ status: 204, 'access-control-allow-origin': origin })
        expect(await corsOf(map, preflight(origin))).toEqual(nodePreflight)
        // Another origin: no Access-Control-Allow-Origin from either, so the browser refuses both.
        const stranger = 'https://evil.example.net'
        const strangerGet = await corsOf(nodeConfig, get(stranger))
        expect(strangerGet['access-control-allow-origin']).toBeNull()
        expect(await corsOf(map, get(stranger))).toEqual(strangerGet)
        const strangerPreflight = await corsOf(nodeConfig, preflight(stranger))
        expect(strangerPreflight['access-control-allow-origin']).toBeNull()
        expect(await corsOf(map, preflight(stranger))).toEqual(strangerPreflight)
        // The map itself is unchanged by CORS.
        expect(await (await fetch(map, get(origin))).json()).toEqual({ shards: [{ index: 0, prefix: '/shards/0' }] })
        // The node's start line names the shard it serves.
        expect(node.output()).toMatch(/sealbox: listening on .*, database synthetic \(64 rows × \d+\), shard 0\/1 \(/)
        // A shard's readiness through nginx, as the guide says to check it.
        expect((await fetch(`${nginx.url}/shards/0/readyz`)).status).toBe(200)
        // With the shard's node gone, nginx's own coded 503 carries them too: a page reads the
        // error (its code, Retry-After) instead of a failed fetch.
        await node.stop()
        const down = await fetch(nodeConfig, get(origin))
        expect(down.status).toBe(503)
        expect((await down.json()).error.code).toBe('OVERLOADED')
        expect(down.headers.get('access-control-allow-origin')).toBe(origin)
        expect(down.headers.get('access-control-expose-headers')).toContain('retry-after')
        expect(down.headers.get('vary')).toBe('Origin')
        expect((await fetch(nodeConfig, get(stranger))).headers.get('access-control-allow-origin')).toBeNull()
      } finally {
        await nginx.stop()
      }
    } finally {
      await node.stop()
    }
  }, 900_000)

  it('refuses an origin that is not one', async () => {
    expect(await refusal(['--shard-node', '0=10.0.0.11:8080', '--cors-origin', 'app.example.com'])).toContain(
      'expected an origin like https://app.example.com',
    )
    expect(await refusal(['--shard-node', '0=10.0.0.11:8080', '--cors-origin', 'https://a.example/x'])).toContain(
      'expected an origin',
    )
  })
})

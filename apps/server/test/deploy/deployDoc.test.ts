import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { request as httpRequest } from 'node:http'
import { connect as http2Connect, type IncomingHttpHeaders } from 'node:http2'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { HeError, SealboxClient } from '@sealbox/he-core/client'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, postgresBinDir, runCommand } from '../../src/testing/debianTools.ts'
import { BUILT_MAIN, ServerNode } from '../../src/testing/ServerNode.ts'
import { TempNginx } from '../../src/testing/TempNginx.ts'
import { TempPostgres } from '../../src/testing/TempPostgres.ts'
import { DRILL_ROWS, type KeyedSearch, keyedSearch } from './drillKit.ts'

/*
 * deploy/README.md, followed as written on loopback: the blocks it marks `deploy-test`
 * are read from the file and run — the SQL that makes the role and its grants (as the
 * cluster's superuser, like `runuser -u postgres -- psql`), the shell that makes the
 * tokens once, the build command a node host runs (`npm run build`), the settings file of
 * a node, and the command that renders the nginx site (TLS, HTTP/2, HSTS, the redirect
 * from HTTP) — against a throwaway cluster from Debian's PostgreSQL, two built nodes run
 * by plain Node, and Debian's nginx. What differs from a real host, and only that:
 * /etc/sealbox and /etc/ssl are a temporary directory, db.internal:5432 is the cluster's
 * loopback port, the nodes' and nginx's addresses are free loopback ports, the
 * certificate is self-signed, and the nodes are test-sized (WORKERS=1, a small database,
 * SEARCH_BABY_STEPS=server so searches need the keys in the store). The keyed searches go
 * through a plain-HTTP rendering of the same site (SealboxClient's fetch does not take a
 * private CA); the TLS site is checked with Node's HTTP/2 client.
 */

const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))
const DEPLOY_README = fileURLToPath(new URL('../../../../deploy/README.md', import.meta.url))
const PASSWORD = 'test-password-for-the-sealbox-role'
/** The name the doc's nginx step serves. */
const SERVER_NAME = 'sealbox.example.com'

/** The fenced block after `<!-- deploy-test: name -->` in the deploy README, dedented. */
function docBlock(readme: string, name: string): string {
  const marker = readme.indexOf(`<!-- deploy-test: ${name} -->`)
  if (marker < 0) throw new HeError('INTERNAL', `deploy/README.md has no "deploy-test: ${name}" block`)
  const match = /\n( *)```\w*\n([\s\S]*?)\n *```/.exec(readme.slice(marker))
  if (!match) throw new HeError('INTERNAL', `the "${name}" marker is not followed by a fenced block`)
  const indent = match[1] as string
  return (match[2] as string)
    .split('\n')
    .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
    .join('\n')
}

/** `text` with each `[from, to]` replaced; a `from` the doc no longer says fails the test (never run it on /etc). */
function substitute(text: string, pairs: ReadonlyArray<readonly [string, string]>): string {
  let out = text
  for (const [from, to] of pairs) {
    if (!out.includes(from)) throw new HeError('INTERNAL', `deploy/README.md no longer says "${from}"`)
    out = out.replaceAll(from, to)
  }
  return out
}

/** The environment a build runs in: the test runner's own variables (NODE_ENV=test, VITEST…) left out. */
function buildEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => name !== 'NODE_ENV' && !name.startsWith('VITEST')),
  )
}

/** An answer from nginx's TLS site over HTTP/2, trusting `ca` for `SERVER_NAME`. */
async function http2Get(
  port: number,
  ca: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ headers: IncomingHttpHeaders; body: string }> {
  const session = http2Connect(`https://127.0.0.1:${port}`, { ca, servername: SERVER_NAME })
  try {
    return await new Promise((resolve, reject) => {
      session.once('error', reject)
      const stream = session.request({ ':path': path, ':authority': SERVER_NAME, ...headers })
      let body = ''
      let answer: IncomingHttpHeaders = {}
      stream.on('response', (received) => {
        answer = received
      })
      stream.setEncoding('utf8')
      stream.on('data', (chunk: string) => {
        body += chunk
      })
      stream.once('end', () => resolve({ headers: answer, body }))
      stream.once('error', reject)
    })
  } finally {
    session.close()
  }
}

/** The status and Location of a plain-HTTP request to nginx's port-80 server, as a browser sends it. */
function httpRedirect(port: number, path: string): Promise<{ status: number; location: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host: SERVER_NAME } }, (response) => {
      response.resume()
      response.once('end', () => resolve({ status: response.statusCode ?? 0, location: response.headers.location }))
    })
    req.once('error', reject)
    req.end()
  })
}

let dir: string
let postgres: TempPostgres
let nodes: ServerNode[] = []
let nginx: TempNginx
let tlsNginx: TempNginx
let tlsPort: number
let httpPort: number
let tlsSite: string
let certificate: string
let tokens: Map<string, string>
let keyed: KeyedSearch

beforeAll(async () => {
  const readme = await readFile(DEPLOY_README, 'utf8')
  // Step 3's build, the command as the doc writes it (`npm run build`), in this checkout.
  const build = docBlock(readme, 'node-host')
    .split('\n')
    .find((line) => line.startsWith('npm run build'))
  if (!build) throw new HeError('INTERNAL', 'deploy/README.md step 3 no longer runs `npm run build`')
  await run('/bin/sh', ['-c', build.replace(/\s+#.*$/, '')], {
    cwd: ROOT,
    env: buildEnv(),
    timeout: 600_000,
    maxBuffer: 64 * 2 ** 20,
  })
  dir = await mkdtemp(join(tmpdir(), 'sealbox-deploy-doc-'))
  const etc = join(dir, 'etc-sealbox')

  // Step 1: the role, the database and the grants, as the superuser.
  postgres = await TempPostgres.start()
  const sqlFile = join(dir, 'sealbox-db.sql')
  await writeFile(sqlFile, docBlock(readme, 'grants').replaceAll('CHANGE-ME', PASSWORD))
  await runCommand(join(postgresBinDir(), 'psql'), [
    '-v',
    'ON_ERROR_STOP=1',
    '-q',
    '-d',
    postgres.url('postgres'),
    '-f',
    sqlFile,
  ])

  // Step 2: the tokens, made once.
  await runCommand('/bin/bash', ['-euc', docBlock(readme, 'tokens').replaceAll('/etc/sealbox', etc)])
  tokens = new Map(
    (await readFile(join(etc, 'tokens'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => line.split(':') as [string, string]),
  )

  // Step 3: the settings file of each node, then two built nodes.
  const env: Record<string, string> = {}
  for (const line of docBlock(readme, 'env').split('\n')) {
    const match = /^([A-Z_]+)=(.*)$/.exec(line)
    if (match) env[match[1] as string] = match[2] as string
  }
  const settings = {
    ...env,
    TOKENS_FILE: (env.TOKENS_FILE as string).replace('/etc/sealbox', etc),
    KEY_STORE: (env.KEY_STORE as string)
      .replace('CHANGE-ME', PASSWORD)
      .replace('db.internal:5432', `127.0.0.1:${postgres.port}`),
    WORKERS: '1',
    SYNTHETIC_ROWS: String(DRILL_ROWS),
    SEARCH_BABY_STEPS: 'server',
  }
  nodes = await Promise.all(
    ['node-a', 'node-b'].map((name) => ServerNode.start({ name, entry: 'built', env: settings })),
  )
  // Step 4: the doc's own render command, with a throwaway certificate for the name it serves.
  await runCommand('openssl', [
    ...['req', '-x509', '-newkey', 'rsa:2048', '-sha256', '-days', '2', '-nodes'],
    ...['-keyout', join(dir, 'sealbox.key'), '-out', join(dir, 'sealbox.crt')],
    ...['-subj', `/CN=${SERVER_NAME}`, '-addext', `subjectAltName=DNS:${SERVER_NAME}`],
  ])
  certificate = await readFile(join(dir, 'sealbox.crt'), 'utf8')
  tlsPort = await freePort()
  httpPort = await freePort()
  const [nodeA, nodeB] = nodes as [ServerNode, ServerNode]
  const render = substitute(docBlock(readme, 'nginx'), [
    ['10.0.0.11:8080', nodeA.address],
    ['10.0.0.12:8080', nodeB.address],
    ["--listen '443 ssl'", `--listen '127.0.0.1:${tlsPort} ssl'`],
    ['--redirect-http 80', `--redirect-http 127.0.0.1:${httpPort}`],
    ['/etc/ssl/', `${dir}/`],
    ['/etc/nginx/conf.d/sealbox.conf', join(dir, 'sealbox.conf')],
  ])
  await runCommand('/bin/bash', ['-euc', `cd ${JSON.stringify(ROOT)}\n${render}`])
  tlsSite = await readFile(join(dir, 'sealbox.conf'), 'utf8')
  // startSite checks it with `nginx -t` first, as the doc's next line does.
  tlsNginx = await TempNginx.startSite(tlsSite, tlsPort)
  // The clients' way in: the same site on plain HTTP.
  nginx = await TempNginx.start({ nodes: nodes.map((node) => node.address) })
}, 900_000)

afterAll(async () => {
  keyed?.search[Symbol.dispose]()
  await nginx?.stop()
  await tlsNginx?.stop()
  await Promise.all(nodes.map((node) => node.stop()))
  await postgres?.stop()
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe('deploy/README.md, as written', () => {
  it('is JavaScript that plain Node runs: --help from the built server', async () => {
    expect(existsSync(BUILT_MAIN)).toBe(true)
    const help = await run(process.execPath, [BUILT_MAIN, '--help'])
    expect(help.stdout).toContain('usage: node apps/server/dist/main.js')
    expect(help.stdout).toContain('422 LIMIT_EXCEEDED')
    expect(help.stdout).toContain('--tokens-file <value>')
  })

  it('made one set of tokens that every node accepts, and a role with only the doc’s grants', async () => {
    expect([...tokens.keys()]).toEqual(['alice', 'bob'])
    for (const token of tokens.values()) expect(token).toMatch(/^[0-9a-f]{48}$/)
    const client = new pg.Client({ connectionString: postgres.url('sealbox') })
    await client.connect()
    try {
      const role = await client.query<{ rolsuper: boolean; rolcreatedb: boolean; rolcreaterole: boolean }>(
        "SELECT rolsuper, rolcreatedb, rolcreaterole FROM pg_roles WHERE rolname = 'sealbox'",
      )
      expect(role.rows).toEqual([{ rolsuper: false, rolcreatedb: false, rolcreaterole: false }])
      const owners = await client.query<{ tablename: string; tableowner: string }>(
        "SELECT tablename, tableowner FROM pg_tables WHERE tablename LIKE 'sealbox_%' ORDER BY tablename",
      )
      // The first node created the tables as the sealbox role.
      expect(owners.rows.map((row) => row.tableowner)).toEqual(owners.rows.map(() => 'sealbox'))
      expect(owners.rows.length).toBe(3)
    } finally {
      await client.end()
    }
    for (const node of nodes) expect(await node.log()).toMatch(/key store PostgreSQL sealbox@127\.0\.0\.1:\d+\/sealbox/)
  })

  it('renders an nginx site that Debian’s nginx accepts: HTTP/2 over TLS with HSTS, and HTTP redirected to HTTPS', async () => {
    // Debian 12's nginx (1.22) has no `http2` directive: HTTP/2 goes on the listen line there.
    expect(tlsSite).toMatch(/listen 127\.0\.0\.1:\d+ ssl( http2)?;/)
    expect(tlsSite).toContain(`server_name ${SERVER_NAME};`)
    const alice = tokens.get('alice') as string
    const health = await http2Get(tlsPort, certificate, '/healthz')
    expect(health.headers[':status']).toBe(200)
    expect(health.headers['strict-transport-security']).toBe('max-age=31536000')
    expect(nodes.map((node) => node.address)).toContain(health.headers['x-sealbox-node'])
    const list = await http2Get(tlsPort, certificate, '/api/v1/keysets', { authorization: `Bearer ${alice}` })
    expect([list.headers[':status'], list.headers['strict-transport-security']]).toEqual([200, 'max-age=31536000'])
    expect(JSON.parse(list.body)).toHaveProperty('keySets')
    const redirect = await httpRedirect(httpPort, '/api/v1/keysets?x=1')
    expect(redirect).toEqual({ status: 301, location: `https://${SERVER_NAME}/api/v1/keysets?x=1` })
  })

  it('serves a keyed search through nginx on the built nodes, and keeps tenants apart', async () => {
    const alice = new SealboxClient({ baseUrl: nginx.url, token: tokens.get('alice') as string })
    keyed = await keyedSearch(alice)
    for (let i = 0; i < 3; i++) await keyed.run(alice)
    for (const node of nodes) await keyed.run(new SealboxClient({ baseUrl: node.url, token: tokens.get('alice') }))
    const bob = new SealboxClient({ baseUrl: nginx.url, token: tokens.get('bob') as string })
    const error = await bob.getKeySet('main').catch((failure: unknown) => failure)
    expect((error as HeError).code).toBe('NOT_FOUND')
  })
})

import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { chown, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { HeError, SealboxClient } from '@sealbox/he-core/client'
import {
  demoSearchDatabase,
  embedText,
  plaintextSearchScores,
  topKIndices,
  verifySearchConfig,
} from '@sealbox/he-core/search'
import {
  freePort,
  isRoot,
  postgresBinDir,
  runCommand,
  ServerNode,
  TempNginx,
  TempPostgres,
  waitFor,
} from '@sealbox/testkit'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { copyCheckout } from '../../../../scripts/copyCheckout.mjs'
import { writeInstallStamp } from '../../../../scripts/installStamp.mjs'
import {
  buildEnv,
  docBlock,
  docBlockOrder,
  http2Get,
  httpRedirect,
  type ReaderHost,
  readerHost,
  runAsReader,
  SERVER_NAME,
  substitute,
} from './deployDocKit.ts'

/*
 * deploy/README.md (and KEY-STORE.md's backup and restore), followed as its reader does:
 * as root, in a directory `postgres` cannot read, the marked blocks in the doc's order, each
 * run by bash as written. What differs from a real host, and only that: the doc's `git clone`
 * is a copy of this checkout's working tree (scripts/copyCheckout.mjs: uncommitted edits
 * included, node_modules linked to this checkout's installed dependencies, the bootstrap's
 * install stamp written as a clone whose dependencies are installed has it), so the build
 * writes dist/ there and nothing another test file reads here changes under it; /etc/sealbox,
 * /etc/ssl, /etc/systemd/system and PostgreSQL's configuration directory are directories of
 * this test; the cluster is a throwaway one from Debian's binaries on a loopback port, its
 * TLS switched on with the doc's certificates (ALTER SYSTEM + reload, for the doc's
 * postgresql.conf lines and restart); db.internal, 10.0.0.x and port 443 are loopback
 * addresses and free ports; the sealbox user is named for this run and removed after; the
 * host's `apt-get`, `systemctl`, `journalctl` and the operator's `editor` are stand-ins
 * (deployDocKit.ts) that record what they were asked, apt-get acting as on a host whose
 * NodeSource `nodejs` already provides npm; nodes are test-sized (one worker, the demo
 * database, SEARCH_BABY_STEPS=server so searches need keys in the store) and run by plain
 * Node from the build the doc's `npm run build` made in that copy. The client example runs from that
 * build against nginx's TLS site, trusting the doc's self-signed certificate through
 * NODE_EXTRA_CA_CERTS.
 */

const run = promisify(execFile)
const README = fileURLToPath(new URL('../../../../deploy/README.md', import.meta.url))
const KEY_STORE_DOC = fileURLToPath(new URL('../../../../deploy/KEY-STORE.md', import.meta.url))
const PASSWORD = 'test-password-for-the-sealbox-role'
/** The steps this test takes, in the order the doc gives them. */
const DOC_ORDER = [
  'db-host',
  'grants',
  'db-tls',
  'tokens',
  'node-host',
  'env',
  'nginx',
  'test-cert',
  'client',
  'rolling-restart',
  'shard-nginx',
]

let readme: string
let keyStoreDoc: string
let host: ReaderHost
let etc: string
let pgConf: string
let clientDir: string
/** The doc's /opt/sealbox: a copy of this checkout, where `npm run build` writes dist/. */
let checkout: string
let user: string
let userAdded = false
let postgres: TempPostgres
let nodeEnv: Record<string, string>
let nodes: ServerNode[] = []
let tlsNginx: TempNginx
let tlsPort: number
let httpPort: number
let tlsSite: string
let certificate: string
let tokens: Map<string, string>

/** A node's settings file as systemd's EnvironmentFile reads it. */
function parseEnvFile(text: string): Record<string, string> {
  const env: Record<string, string> = {}
  for (const line of text.split('\n')) {
    const match = /^([A-Z_]+)=(.*)$/.exec(line)
    if (match) env[match[1] as string] = match[2] as string
  }
  return env
}

/** The five hits of the demo database for `text`, by the plaintext oracle, as `id`s. */
async function oracleIds(url: string, token: string, text: string): Promise<string[]> {
  const config = verifySearchConfig(await new SealboxClient({ baseUrl: url, token }).searchConfig())
  const database = demoSearchDatabase(config.dimension)
  const rows = topKIndices(plaintextSearchScores(config, database, embedText(text, config.dimension)), 5)
  return rows.map((row) => String(database.ids[row]))
}

function startNode(name: string, port?: number, waitReady = true): Promise<ServerNode> {
  return ServerNode.start({
    name,
    entry: 'built',
    builtMain: join(checkout, 'apps/server/dist/main.js'),
    env: nodeEnv,
    ...(port ? { port } : {}),
    waitReady,
  })
}

beforeAll(async () => {
  if (!isRoot()) throw new HeError('INTERNAL', 'the deploy guide is run as root, and so is its test')
  readme = await readFile(README, 'utf8')
  keyStoreDoc = await readFile(KEY_STORE_DOC, 'utf8')
  const home = await mkdtemp(join(tmpdir(), 'sealbox-deploy-doc-')) // 0700: root's alone
  etc = join(home, 'etc-sealbox')
  host = await readerHost(home, join(etc, 'sealbox.env'))
  user = `sbxdoc${process.pid}`
  pgConf = await mkdtemp(join(tmpdir(), 'sealbox-deploy-pgconf-'))
  const pgUid = Number((await runCommand('id', ['-u', 'postgres'])).stdout.trim())
  await chown(pgConf, pgUid, pgUid)
  const asReader = (script: string, options: Parameters<typeof runAsReader>[2] = {}) =>
    runAsReader(host, script, options)

  // Step 1: PostgreSQL; sealbox-db.sql written in the reader's directory and fed to psql.
  postgres = await TempPostgres.start()
  await writeFile(join(home, 'sealbox-db.sql'), `${docBlock(readme, 'grants').replaceAll('CHANGE-ME', PASSWORD)}\n`)
  const pgEnv = { PGHOST: '127.0.0.1', PGPORT: String(postgres.port) }
  await asReader(docBlock(readme, 'db-host'), { env: pgEnv })
  // The database's certificates, made by the doc's openssl commands, then TLS switched on.
  const tlsDir = join(home, 'pg-tls')
  await asReader(
    substitute(docBlock(readme, 'db-tls'), [
      ['/etc/postgresql/sealbox-tls', tlsDir],
      ['/etc/postgresql/15/main/', `${pgConf}/`],
      ['IP:10.0.0.5', 'IP:127.0.0.1'],
    ]),
  )
  const admin = new pg.Client({ connectionString: postgres.url() })
  await admin.connect()
  try {
    await admin.query(`ALTER SYSTEM SET ssl_cert_file = '${pgConf}/sealbox-db.crt'`)
    await admin.query(`ALTER SYSTEM SET ssl_key_file = '${pgConf}/sealbox-db.key'`)
    await admin.query('ALTER SYSTEM SET ssl = on')
    await admin.query('SELECT pg_reload_conf()')
  } finally {
    await admin.end()
  }
  await waitFor('PostgreSQL to serve TLS', async () => {
    const probe = new pg.Client({ connectionString: postgres.url() })
    await probe.connect()
    try {
      return (await probe.query<{ ssl: string }>('SHOW ssl')).rows[0]?.ssl === 'on'
    } finally {
      await probe.end()
    }
  })

  // Step 2: the user and the tokens.
  const users: Array<readonly [string, string]> = [
    ['id -u sealbox', `id -u ${user}`],
    ['nologin sealbox', `nologin ${user}`],
  ]
  userAdded = true // from here on the user may exist: afterAll removes it
  await asReader(
    substitute(docBlock(readme, 'tokens'), [...users, ['/etc/sealbox', etc], ['chown sealbox:', `chown ${user}:`]]),
  )
  tokens = new Map(
    (await readFile(join(etc, 'tokens'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => line.split(':') as [string, string]),
  )

  // Step 3: a node host, as written; the operator's edit is the doc's settings for this host.
  const tlsUrl = /`KEY_STORE=(postgres:\/\/[^`]*sslmode=verify-full[^`]*)`/.exec(readme)?.[1]
  if (!tlsUrl) throw new HeError('INTERNAL', 'deploy/README.md no longer gives a verify-full KEY_STORE')
  await copyFile(join(tlsDir, 'db-ca.crt'), join(host.home, 'db-ca.crt'))
  const keyStore = substitute(tlsUrl, [
    ['<password>', PASSWORD],
    ['10.0.0.5:5432', `127.0.0.1:${postgres.port}`],
    ['/etc/sealbox/db-ca.crt', join(etc, 'db-ca.crt')],
  ])
  checkout = copyCheckout({ into: join(home, 'opt-sealbox') })
  writeInstallStamp(checkout)
  const settings = substitute(docBlock(readme, 'env'), [
    ['/etc/sealbox', etc],
    ['postgres://sealbox:CHANGE-ME@db.internal:5432/sealbox', keyStore],
    ['HOST=10.0.0.11', 'HOST=127.0.0.1'],
  ])
  await writeFile(host.editedSettings, `${settings}\n`)
  await asReader(
    substitute(docBlock(readme, 'node-host'), [
      ['git clone <your sealbox repository> /opt/sealbox && cd /opt/sealbox', `cd ${JSON.stringify(checkout)}`],
      ['/etc/systemd/system/', `${join(host.home, 'systemd')}/`],
      ['-g sealbox', `-g ${user}`],
      ...users,
      ['/etc/sealbox', etc],
    ]).replace(/^cp deploy\/systemd/m, `mkdir -p ${join(host.home, 'systemd')} && cp deploy/systemd`),
    { timeoutMs: 900_000 },
  )
  // The doc's "copy db-ca.crt to each node as /etc/sealbox/db-ca.crt".
  await copyFile(join(host.home, 'db-ca.crt'), join(etc, 'db-ca.crt'))
  nodeEnv = {
    ...parseEnvFile(await readFile(join(etc, 'sealbox.env'), 'utf8')),
    WORKERS: '1',
    DATABASE: 'demo',
    SEARCH_BABY_STEPS: 'server',
  }
  nodes = await Promise.all(['node-a', 'node-b'].map((name) => startNode(name)))

  // Step 4: the doc's render command, and its test certificate for the name (and loopback).
  tlsPort = await freePort()
  httpPort = await freePort()
  const [nodeA, nodeB] = nodes as [ServerNode, ServerNode]
  const render = substitute(docBlock(readme, 'nginx'), [
    ['10.0.0.11:8080', nodeA.address],
    ['10.0.0.12:8080', nodeB.address],
    ["--listen '443 ssl'", `--listen '127.0.0.1:${tlsPort} ssl'`],
    ['--redirect-http 80', `--redirect-http 127.0.0.1:${httpPort}`],
    ['/etc/ssl/', `${host.home}/`],
    ['/etc/nginx/conf.d/sealbox.conf', join(host.home, 'sealbox.conf')],
  ])
  await asReader(render, { cwd: checkout })
  await asReader(
    substitute(docBlock(readme, 'test-cert'), [
      ['/etc/ssl/', `${host.home}/`],
      ['IP:10.0.0.10', 'IP:127.0.0.1'],
    ]),
  )
  certificate = await readFile(join(host.home, 'sealbox.crt'), 'utf8')
  tlsSite = await readFile(join(host.home, 'sealbox.conf'), 'utf8')
  // startSite checks it with `nginx -t` first, as the doc's next line does.
  tlsNginx = await TempNginx.startSite(tlsSite, tlsPort)
  // Step 5's example, placed where the build's @sealbox/he-core resolves (apps/server's node_modules).
  clientDir = join(checkout, 'apps/server/node_modules', '.deploy-doc-client')
  await mkdir(clientDir, { recursive: true })
  await writeFile(join(clientDir, 'search.mjs'), docBlock(readme, 'client'))
}, 1_200_000)

afterAll(async () => {
  await tlsNginx?.stop()
  await Promise.all(nodes.map((node) => node.stop()))
  await postgres?.stop()
  if (userAdded) await runCommand('userdel', [user]).catch(() => undefined)
  for (const dir of [host?.home, pgConf, clientDir]) if (dir) await rm(dir, { recursive: true, force: true })
})

describe('deploy/README.md, as written', () => {
  it('is followed in the doc’s order, from a directory postgres cannot read, on a host whose nodejs has npm', async () => {
    expect(docBlockOrder(readme)).toEqual(DOC_ORDER)
    const unreadable = await runCommand('runuser', [
      '-u',
      'postgres',
      '--',
      'test',
      '-r',
      join(host.home, 'sealbox-db.sql'),
    ])
      .then(() => false)
      .catch(() => true)
    expect(unreadable).toBe(true)
    // apt-get was never asked for npm (the host has it) nor for the installed PostgreSQL.
    const apt = (await readFile(host.aptLog, 'utf8').catch(() => '')).split('\n').filter(Boolean)
    expect(apt.filter((line) => /\bnpm\b|\bpostgresql\b/.test(line))).toEqual([])
    expect(apt).toContain('install -y git openssl')
    // The service was enabled only once the settings were edited.
    const systemctl = (await readFile(host.systemctlLog, 'utf8')).split('\n').filter(Boolean)
    const enable = systemctl.find((line) => line.startsWith('systemctl enable --now sealbox |'))
    expect(enable).toBeDefined()
    expect(enable).not.toContain('CHANGE-ME')
    expect(enable).toContain('sslmode=verify-full')
    expect(existsSync(join(host.home, 'systemd', 'sealbox.service'))).toBe(true)
  })

  it('is JavaScript that plain Node runs: --help from the built server', async () => {
    const builtMain = join(checkout, 'apps/server/dist/main.js')
    expect(existsSync(builtMain)).toBe(true)
    const help = await run(process.execPath, [builtMain, '--help'])
    expect(help.stdout).toContain('usage: node apps/server/dist/main.js')
    expect(help.stdout).toContain('--tokens-file <value>')
  })

  it('made one set of tokens, a role with only the doc’s grants, and nodes that reach it over verified TLS', async () => {
    expect([...tokens.keys()]).toEqual(['alice', 'bob'])
    for (const token of tokens.values()) expect(token).toMatch(/^[0-9a-f]{48}$/)
    const owner = (await runCommand('stat', ['-c', '%U %a', join(etc, 'tokens')])).stdout.trim()
    expect(owner).toBe(`${user} 600`)
    const client = new pg.Client({ connectionString: postgres.url('sealbox') })
    await client.connect()
    try {
      const role = await client.query('SELECT rolsuper, rolcreatedb, rolcreaterole FROM pg_roles WHERE rolname = $1', [
        'sealbox',
      ])
      expect(role.rows).toEqual([{ rolsuper: false, rolcreatedb: false, rolcreaterole: false }])
      const owners = await client.query<{ tableowner: string }>(
        "SELECT tableowner FROM pg_tables WHERE tablename LIKE 'sealbox_%' ORDER BY tablename",
      )
      expect(owners.rows.map((row) => row.tableowner)).toEqual(['sealbox', 'sealbox', 'sealbox', 'sealbox'])
      // A node's pool closes a connection idle for 30 s, which a loaded machine spends between
      // the nodes' start and this test: each node reads the store, then its connections are looked at.
      let tls: Array<{ ssl: boolean }> = []
      await waitFor('the nodes’ connections to the key store', async () => {
        await Promise.all(
          nodes.map((node) =>
            new SealboxClient({ baseUrl: node.url, token: tokens.get('alice') as string }).listKeySets(),
          ),
        )
        tls = (
          await client.query<{ ssl: boolean }>(
            "SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.usename = 'sealbox'",
          )
        ).rows
        return tls.length > 0
      })
      expect(tls.every((row) => row.ssl)).toBe(true)
    } finally {
      await client.end()
    }
    for (const node of nodes) expect(await node.log()).toMatch(/key store PostgreSQL sealbox@127\.0\.0\.1:\d+\/sealbox/)
  })

  it('means what it says about sslmode with node-postgres: require verifies, uselibpqcompat=true does not', async () => {
    const url = (query: string) => `postgres://sealbox:${PASSWORD}@127.0.0.1:${postgres.port}/sealbox?${query}`
    const connects = async (query: string) => {
      const client = new pg.Client({ connectionString: url(query) })
      try {
        await client.connect()
        return (await client.query<{ ssl: boolean }>('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()'))
          .rows[0]
      } catch (error) {
        return String(error)
      } finally {
        await client.end().catch(() => undefined)
      }
    }
    // The doc's own certificate authority is no system CA: plain `require` checks the chain and fails.
    expect(await connects('sslmode=require')).toMatch(
      /unable to verify the first certificate|self[- ]signed certificate/,
    )
    expect(await connects('uselibpqcompat=true&sslmode=require')).toEqual({ ssl: true })
    expect(await connects(`sslmode=verify-full&sslrootcert=${join(etc, 'db-ca.crt')}`)).toEqual({ ssl: true })
  })

  it('renders an nginx site that Debian’s nginx accepts: HTTP/2 over TLS with HSTS, and HTTP redirected to HTTPS', async () => {
    expect(tlsSite).toMatch(/listen 127\.0\.0\.1:\d+ ssl( http2)?;/)
    expect(tlsSite).toContain(`server_name ${SERVER_NAME};`)
    const health = await http2Get(tlsPort, certificate, '/healthz')
    expect(health.headers[':status']).toBe(200)
    expect(health.headers['strict-transport-security']).toBe('max-age=31536000')
    expect(nodes.map((node) => node.address)).toContain(health.headers['x-sealbox-node'])
    const redirect = await httpRedirect(httpPort, '/api/v1/keysets?x=1')
    expect(redirect).toEqual({ status: 301, location: `https://${SERVER_NAME}/api/v1/keysets?x=1` })
  })

  it('runs step 5’s client example through nginx’s TLS site: keys uploaded, named hits in the oracle’s order', async () => {
    const alice = tokens.get('alice') as string
    const env = {
      ...buildEnv(),
      SEALBOX_URL: `https://127.0.0.1:${tlsPort}`,
      SEALBOX_TOKEN: alice,
      NODE_EXTRA_CA_CERTS: join(host.home, 'sealbox.crt'),
    }
    const example = await run(process.execPath, [join(clientDir, 'search.mjs')], { cwd: host.home, env })
    const lines = example.stdout.trim().split('\n')
    expect(lines.map((line) => /^\d+\. (\S+) /.exec(line)?.[1])).toEqual(
      await oracleIds(nodes[0]?.url as string, alice, 'noble gas'),
    )
    expect(lines[0]).toMatch(/^1\. \w+ 0\.\d{3} \{"name":/)
    // The built command, the same way.
    const searchBin = join(checkout, 'packages/he-core/dist/node/sealboxSearchMain.js')
    const command = await run(process.execPath, [searchBin, '--url', env.SEALBOX_URL, '--text', 'iron'], {
      cwd: host.home,
      env,
    })
    expect(command.stdout.split('\n')[0]).toMatch(/^1\tFe\t/)
    // Another tenant sees none of alice's key sets.
    const bob = new SealboxClient({ baseUrl: nodes[0]?.url as string, token: tokens.get('bob') as string })
    const error = await bob.getKeySet('mine').catch((failure: unknown) => failure)
    expect((error as HeError).code).toBe('NOT_FOUND')
  })

  it('waits, in the rolling restart, until a restarted node is ready and nginx sends it traffic', async () => {
    const node = nodes[0] as ServerNode
    await node.stop()
    // The doc's `systemctl restart` on the node: the process is started again, not yet ready.
    nodes[0] = await startNode(node.name, node.port, false)
    const loop = substitute(docBlock(readme, 'rolling-restart'), [
      ['for node in 10.0.0.11 10.0.0.12; do', 'for node in 127.0.0.1; do'],
      ['ssh "root@$node" systemctl restart sealbox', ': restarted by the test'],
      ['$node:8080', `$node:${node.port}`],
      [
        'https://sealbox.example.com/healthz',
        `--cacert ${join(host.home, 'sealbox.crt')} https://127.0.0.1:${tlsPort}/healthz`,
      ],
    ])
    await runAsReader(host, loop, { timeoutMs: 180_000 })
    // No wait of ours: the doc's loop returned only once the node was ready.
    expect((await fetch(`${nodes[0]?.url}/readyz`)).status).toBe(200)
  })

  it('backs up, and restores into a database made again by the same SQL file (KEY-STORE.md)', async () => {
    const pgHost: Array<readonly [string, string]> = [['-h db.internal', `-h 127.0.0.1 -p ${postgres.port}`]]
    await runAsReader(host, substitute(docBlock(keyStoreDoc, 'backup'), pgHost))
    await Promise.all(nodes.map((node) => node.stop()))
    await runCommand(join(postgresBinDir(), 'dropdb'), [
      '-h',
      '127.0.0.1',
      '-p',
      String(postgres.port),
      '-U',
      'postgres',
      'sealbox',
    ])
    await runAsReader(host, substitute(docBlock(keyStoreDoc, 'restore'), pgHost), {
      env: { PGHOST: '127.0.0.1', PGPORT: String(postgres.port) },
    })
    nodes = [await startNode('restored')]
    const alice = new SealboxClient({ baseUrl: nodes[0]?.url as string, token: tokens.get('alice') as string })
    const listed = await alice.listKeySets()
    expect(listed.keySets.map((keySet) => keySet.id).sort()).toEqual(['mine', 'sealbox-search'])
  })
})

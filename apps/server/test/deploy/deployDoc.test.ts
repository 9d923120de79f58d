import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { HeError, SealboxClient } from '@sealbox/he-core/client'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { postgresBinDir, runCommand } from '../../src/testing/debianTools.ts'
import { BUILT_MAIN, ServerNode } from '../../src/testing/ServerNode.ts'
import { TempNginx } from '../../src/testing/TempNginx.ts'
import { TempPostgres } from '../../src/testing/TempPostgres.ts'
import { DRILL_ROWS, type KeyedSearch, keyedSearch } from './drillKit.ts'

/*
 * deploy/README.md, followed as written on loopback: the blocks it marks `deploy-test`
 * are read from the file and run — the SQL that makes the role and its grants (as the
 * cluster's superuser, like `runuser -u postgres -- psql`), the shell that makes the
 * tokens once, the settings file of a node — against a throwaway cluster from Debian's
 * PostgreSQL, two nodes built by the packages' build scripts (what `npm run build` runs)
 * and run by plain Node, and nginx from render.mjs. What differs from a real host, and
 * only that: /etc/sealbox is a temporary directory, db.internal:5432 is the cluster's
 * loopback port, HOST is 127.0.0.1, and the nodes are test-sized (WORKERS=1, a small
 * database, SEARCH_BABY_STEPS=server so searches need the keys in the store).
 */

const run = promisify(execFile)
const require = createRequire(import.meta.url)
const TSC = require.resolve('typescript/bin/tsc')
const HE_CORE = fileURLToPath(new URL('../../../../packages/he-core/', import.meta.url))
const SERVER = fileURLToPath(new URL('../../', import.meta.url))
const DEPLOY_README = fileURLToPath(new URL('../../../../deploy/README.md', import.meta.url))
const PASSWORD = 'test-password-for-the-sealbox-role'

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

let dir: string
let postgres: TempPostgres
let nodes: ServerNode[] = []
let nginx: TempNginx
let tokens: Map<string, string>
let keyed: KeyedSearch

beforeAll(async () => {
  // The packages' build scripts (tsc -p tsconfig.build.json), as `npm run build` runs them.
  await run(process.execPath, [TSC, '-p', 'tsconfig.build.json'], { cwd: HE_CORE })
  await run(process.execPath, [TSC, '-p', 'tsconfig.build.json'], { cwd: SERVER })
  const readme = await readFile(DEPLOY_README, 'utf8')
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
  // Step 4: nginx from render.mjs.
  nginx = await TempNginx.start({ nodes: nodes.map((node) => node.address) })
}, 300_000)

afterAll(async () => {
  keyed?.search[Symbol.dispose]()
  await nginx?.stop()
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

import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SealboxClient } from '@sealbox/he-core/client'
import { ServerNode, TempNginx, TempPostgres, waitFor } from '@sealbox/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { drillNodeEnv, type KeyedSearch, keyedSearch, replaceFile, SearchLoop, statusWithToken } from './drillKit.ts'

/*
 * Drill: alice's token is rotated while she searches through nginx, on two nodes that
 * share one PostgreSQL key store and one tokens file. The new token is added beside the
 * old one (node A hears SIGHUP, node B sees the file change), alice moves to it, the old
 * one is removed. Not one search may fail, and SIGHUP must not end a node.
 */

const OLD = 'alice-old-token-0123456789abcdefghijKLMN'
const NEW = 'alice-new-token-9876543210zyxwvutsrqPONM'
const BOB = 'bob-token-0123456789abcdefghijKLMNOPQRS'

let dir: string
let tokensFile: string
let postgres: TempPostgres
let nodes: ServerNode[]
let nginx: TempNginx
let keyed: KeyedSearch

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sealbox-rotation-'))
  tokensFile = join(dir, 'tokens')
  await replaceFile(tokensFile, `# tenant:token, one per line\nalice:${OLD}\nbob:${BOB}\n`)
  postgres = await TempPostgres.start()
  const env = drillNodeEnv({ TOKENS_FILE: tokensFile, KEY_STORE: await postgres.createDatabase('sealbox') })
  nodes = await Promise.all([ServerNode.start({ name: 'node-a', env }), ServerNode.start({ name: 'node-b', env })])
  nginx = await TempNginx.start({ nodes: nodes.map((node) => node.address) })
  keyed = await keyedSearch(new SealboxClient({ baseUrl: nginx.url, token: OLD }))
}, 240_000)

afterAll(async () => {
  keyed?.search[Symbol.dispose]()
  await nginx?.stop()
  await Promise.all((nodes ?? []).map((node) => node.stop()))
  await postgres?.stop()
  await rm(dir, { recursive: true, force: true })
})

describe('token rotation without downtime', () => {
  it('rotates alice’s token during a search loop through nginx with 0 failures', async () => {
    const [nodeA, nodeB] = nodes as [ServerNode, ServerNode]
    let token = OLD
    const loop = new SearchLoop(() => keyed.run(new SealboxClient({ baseUrl: nginx.url, token })))
    await loop.waitForOk(3)

    // 1. The new token beside the old one: A by SIGHUP, B by noticing the file.
    await replaceFile(tokensFile, `alice:${OLD}\nalice:${NEW}\nbob:${BOB}\n`)
    nodeA.signal('SIGHUP')
    for (const node of nodes) {
      await waitFor(`${node.name} to accept the new token`, async () => (await statusWithToken(node.url, NEW)) === 200)
      expect(await statusWithToken(node.url, OLD)).toBe(200)
    }
    await loop.waitForOk(3)

    // 2. Alice moves to the new token (her key set may now hash to the other node: a cold load there).
    token = NEW
    await loop.waitForOk(5)

    // 3. The old token goes: B by SIGHUP this time, A by the file change.
    await replaceFile(tokensFile, `alice:${NEW}\nbob:${BOB}\n`)
    nodeB.signal('SIGHUP')
    for (const node of nodes) {
      await waitFor(`${node.name} to refuse the old token`, async () => (await statusWithToken(node.url, OLD)) === 401)
    }
    await loop.waitForOk(3)

    // A file that does not parse is refused; the tokens in force stay.
    await replaceFile(tokensFile, `alice:short\n`)
    nodeA.signal('SIGHUP')
    await waitFor('node A to log the refused file', async () => (await nodeA.log()).includes('tokens file refused'))
    await loop.waitForOk(3)
    const counts = await loop.stop()
    console.info(`token rotation drill: ${counts.ok} searches, ${counts.failed} failed`)
    expect(counts.errors).toEqual([])
    expect(counts.failed).toBe(0)
    expect(await statusWithToken(nodeA.url, NEW)).toBe(200)
    expect(await statusWithToken(nodeB.url, BOB)).toBe(200)
    for (const node of nodes) expect((await node.log()).includes('shutting down')).toBe(false)
  })

  it('refuses to start on a tokens file that does not parse: one line naming the tenant, no stack, exit 1', async () => {
    const bad = join(dir, 'bad-tokens')
    await replaceFile(bad, `alice:${OLD}\nbob:short-token\n`)
    const failure = await ServerNode.start({ name: 'bad-tokens', env: drillNodeEnv({ TOKENS_FILE: bad }) }).then(
      () => 'started',
      (error: unknown) => String(error),
    )
    expect(failure).toMatch(/exited \(1\) at start/)
    expect(failure).toMatch(/sealbox: TOKENS_FILE .*bad-tokens: the token of tenant "bob" is 11 characters long/)
    expect(failure).not.toContain('short-token')
    expect(failure).not.toMatch(/\n\s+at /)
  })
})

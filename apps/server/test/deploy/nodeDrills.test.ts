import { SealboxClient } from '@sealbox/he-core/client'
import { ServerNode, TempNginx, TempPostgres, waitFor } from '@sealbox/testkit'
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest'
import { drillNodeEnv, type KeyedSearch, keyedSearch, SearchLoop } from './drillKit.ts'

/*
 * Drills on the nodes of a two-node deployment (PostgreSQL, nginx, keyed searches
 * through nginx with SealboxClient's retries): a node killed with SIGKILL under load, and a
 * node started while its database is down (the rolling restart is rollingRestart.test.ts,
 * with a database that takes long to warm). Each reports its
 * failure count. Every drill starts from the same state, whatever the one before it
 * left: both nodes running and nginx treating both as healthy.
 */

const ALICE = 'alice-token-0123456789abcdefghijKLMNOPQR'

let postgres: TempPostgres
let keyStore: string
let env: Record<string, string>
let nodes: ServerNode[]
let nginx: TempNginx
let keyed: KeyedSearch

/** Starts node `i` again where nginx expects it (same name, same port). */
async function startAgain(i: number): Promise<void> {
  const node = nodes[i] as ServerNode
  nodes[i] = await ServerNode.start({ name: node.name, env, port: node.port })
}

/**
 * Restarts node `i` after `stop` ended it, and waits until nginx treats it as healthy
 * again (deploy/README.md's rolling restart): nginx skips a node that failed for
 * `fail_timeout` after its last failure even once it is back, and restarting the other
 * node within that window leaves nginx no node to send requests to.
 */
async function restart(i: number, stop: (node: ServerNode) => Promise<unknown>): Promise<void> {
  await stop(nodes[i] as ServerNode)
  await startAgain(i)
  await nginx.untilHealthy((nodes[i] as ServerNode).address)
}

/** A search loop through nginx that stops when the test ends, passed or failed. */
function searchLoop(client: SealboxClient): SearchLoop {
  const loop = new SearchLoop(() => keyed.run(client))
  onTestFinished(async () => {
    await loop.stop()
  })
  return loop
}

beforeAll(async () => {
  postgres = await TempPostgres.start()
  keyStore = await postgres.createDatabase('sealbox')
  env = drillNodeEnv({ TOKENS: `alice:${ALICE}`, KEY_STORE: keyStore })
  nodes = await Promise.all([ServerNode.start({ name: 'node-a', env }), ServerNode.start({ name: 'node-b', env })])
  nginx = await TempNginx.start({ nodes: nodes.map((node) => node.address) })
  keyed = await keyedSearch(new SealboxClient({ baseUrl: nginx.url, token: ALICE }))
}, 240_000)

// A drill that failed half way must not hand the next one a dead node, or one nginx
// still counts as failed.
beforeEach(async () => {
  for (const [i, node] of nodes.entries()) {
    if (node.running) continue
    await node.stop()
    await startAgain(i)
  }
  for (const node of nodes) await nginx.untilHealthy(node.address)
}, 180_000)

afterAll(async () => {
  keyed?.search[Symbol.dispose]()
  await nginx?.stop()
  await Promise.all((nodes ?? []).map((node) => node.stop()))
  await postgres?.stop()
})

describe('node drills', () => {
  it('kill -9 of the node serving the searches: fewer than 1 % fail, none of them an HTML page', async () => {
    const seen: string[] = []
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init)
      seen.push((response.headers.get('x-sealbox-node') ?? '').split(',').at(-1)?.trim() ?? '')
      return response
    }
    const loop = searchLoop(new SealboxClient({ baseUrl: nginx.url, token: ALICE, fetch: recording }))
    await loop.waitForOk(3)
    const home = nodes.findIndex((node) => node.address === seen.at(-1))
    expect(home).toBeGreaterThanOrEqual(0)
    await restart(home, async (node) => {
      node.signal('SIGKILL')
      await node.exited()
      // The survivor answers while the killed node is down.
      await loop.waitForOk(5)
      await node.stop()
    })
    // Enough searches around the kill for the failure share to mean something.
    await loop.waitForOk(200)
    const counts = await loop.stop()
    console.info(`kill -9 drill: ${counts.ok + counts.failed} searches, ${counts.failed} failed`, counts.errors)
    expect(counts.failed / (counts.ok + counts.failed)).toBeLessThan(0.01)
    for (const error of counts.errors) expect(error).not.toMatch(/<html/i)
  })

  it('a node started while PostgreSQL is down retries, one line per attempt, and serves once it is up', async () => {
    await postgres.stopServer()
    let restarted = false
    onTestFinished(async () => {
      if (!restarted) await postgres.restart()
    })
    const node = await ServerNode.start({ name: 'late', env, waitReady: false })
    onTestFinished(async () => {
      await node.stop()
    })
    await waitFor('two failed attempts in the log', async () => /\(attempt 2\)/.test(await node.log()))
    await postgres.restart()
    restarted = true
    await waitFor('the late node to be ready', async () => (await fetch(`${node.url}/readyz`)).status === 200, 90_000)
    const log = await node.log()
    expect(log).toMatch(
      /key store PostgreSQL postgres@127\.0\.0\.1:\d+\/sealbox not reachable at start \(attempt 1\): .*ECONNREFUSED.*; retrying in 0\.5 s/,
    )
    expect(log).not.toContain('/sealbox:') // never the URL with credentials
    await keyed.run(new SealboxClient({ baseUrl: node.url, token: ALICE }))
  })

  it('gives up after KEY_STORE_CONNECT_TIMEOUT_MS with one line naming the store and the database’s reason', async () => {
    const wrong = keyStore.replace(/\/sealbox$/, '/no_such_db')
    const failure = await ServerNode.start({
      name: 'wrong-db',
      env: { ...env, KEY_STORE: wrong, KEY_STORE_CONNECT_TIMEOUT_MS: '1500' },
    }).then(
      () => 'started',
      (error: unknown) => String(error),
    )
    expect(failure).toMatch(/exited \(1\) at start/)
    expect(failure).toMatch(
      /sealbox: cannot open the key store PostgreSQL postgres@127\.0\.0\.1:\d+\/no_such_db after \d+ attempts .*database "no_such_db" does not exist/,
    )
    expect(failure).not.toMatch(/\n\s+at /)
  })
})

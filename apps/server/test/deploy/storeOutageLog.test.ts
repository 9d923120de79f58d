import { SealboxClient } from '@sealbox/he-core/client'
import { ServerNode, TempPostgres, waitFor } from '@sealbox/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { drillNodeEnv, type KeyedSearch, keyedSearch } from './drillKit.ts'

/*
 * deploy/KEY-STORE.md promises that while PostgreSQL is down a node logs the database's
 * errors at most once per 10 s per kind, without stacks (issue 30, minor 5). A node at
 * the production log level (info) answers a burst of requests that all fail on the store
 * (lists, unknown key sets, keyed searches once the stale bound is 0): each request has
 * its one request line with the code, and the store's lines are few and stackless.
 */

const ALICE = 'alice-token-0123456789abcdefghijKLMNOPQR'
const BURST = 20

let postgres: TempPostgres
let node: ServerNode
let keyed: KeyedSearch

beforeAll(async () => {
  postgres = await TempPostgres.start()
  const keyStore = await postgres.createDatabase('sealbox')
  node = await ServerNode.start({
    name: 'outage-log',
    // KEY_STORE_STALE_MS=0: every keyed search asks the store, so each of them fails on it.
    env: drillNodeEnv({ TOKENS: `alice:${ALICE}`, KEY_STORE: keyStore, LOG_LEVEL: 'info', KEY_STORE_STALE_MS: '0' }),
  })
  keyed = await keyedSearch(new SealboxClient({ baseUrl: node.url, token: ALICE }))
}, 120_000)

afterAll(async () => {
  keyed?.search[Symbol.dispose]()
  await node?.stop()
  await postgres?.stop()
})

describe('the log during a key-store outage', () => {
  it('has one request line per 503 STORE_UNAVAILABLE and rate-limited store lines, never a stack', async () => {
    await postgres.stopServer()
    try {
      const headers = { authorization: `Bearer ${ALICE}` }
      const statuses: number[] = []
      for (let i = 0; i < BURST; i++) {
        for (const path of ['/api/v1/keysets', `/api/v1/keysets/unseen-${i}`]) {
          const response = await fetch(`${node.url}${path}`, { headers })
          await response.arrayBuffer()
          statuses.push(response.status)
        }
        const response = await fetch(`${node.url}/api/v1/search?keySet=main`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/octet-stream' },
          body: keyed.query as BodyInit,
        })
        await response.arrayBuffer()
        statuses.push(response.status)
      }
      expect(new Set(statuses)).toEqual(new Set([503]))
      const requestLines = async () =>
        (await node.log()).split('\n').filter((line) => line.includes('"code":"STORE_UNAVAILABLE"'))
      // The request line is written once the answer has gone: wait for the last one.
      await waitFor('a request line for every answer', async () => (await requestLines()).length >= statuses.length)
      expect((await requestLines()).length).toBe(statuses.length)
      const lines = (await node.log()).split('\n')
      expect(lines.filter((line) => line.includes('"stack"') || /^\s+at /.test(line))).toEqual([])
      // One line per kind (the action that failed) per 10 s: far fewer than the requests.
      const storeLines = lines.filter((line) => line.includes('key store (PostgreSQL):'))
      expect(storeLines.length).toBeGreaterThan(0)
      expect(storeLines.length).toBeLessThan(statuses.length / 2)
    } finally {
      await postgres.restart()
    }
  })
})

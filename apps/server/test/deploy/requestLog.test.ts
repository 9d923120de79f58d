import { ServerNode, TempNginx, waitFor } from '@sealbox/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/*
 * What an operator reads: one line per request, under the id nginx gave it (the same id
 * in nginx's X-Request-Id, the answer's x-request-id and the node's log), naming the
 * tenant; and the start-up line names the key store.
 */

const ALICE = 'alice-token-0123456789abcdefghijKLMNOPQR'

let node: ServerNode
let nginx: TempNginx

interface LogLine {
  reqId?: string
  msg?: string
  tenant?: string
  status?: number
  code?: string
}

async function linesOf(id: string): Promise<LogLine[]> {
  return (await node.log())
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes(id))
    .map((line) => JSON.parse(line) as LogLine)
}

beforeAll(async () => {
  node = await ServerNode.start({
    name: 'logs',
    env: { MODE: 'production', TOKENS: `alice:${ALICE}`, WORKERS: '1', SYNTHETIC_ROWS: '300', LOG_LEVEL: 'info' },
  })
  nginx = await TempNginx.start({ nodes: [node.address] })
}, 120_000)

afterAll(async () => {
  await nginx?.stop()
  await node?.stop()
})

describe('request logs', () => {
  it('writes one line per request under nginx’s request id, with the tenant and the error code', async () => {
    const listed = await fetch(`${nginx.url}/api/v1/keysets`, { headers: { authorization: `Bearer ${ALICE}` } })
    expect(listed.status).toBe(200)
    await listed.arrayBuffer()
    const id = listed.headers.get('x-request-id') as string
    // nginx's $request_id: 32 hex characters, the node used it as its own.
    expect(id).toMatch(/^[0-9a-f]{32}$/)
    const missing = await fetch(`${nginx.url}/api/v1/keysets/nothing`, {
      headers: { authorization: `Bearer ${ALICE}` },
    })
    expect(missing.status).toBe(404)
    const missingId = missing.headers.get('x-request-id') as string
    await missing.arrayBuffer()
    // The line is written as the answer goes out: wait for it (a deadline, not a time).
    await waitFor('the request lines in the node log', async () => (await linesOf(missingId)).length > 0)
    const lines = await linesOf(missingId)
    expect(await linesOf(id)).toEqual([
      expect.objectContaining({ reqId: id, msg: 'request', tenant: 'alice', status: 200 }),
    ])
    expect(lines).toEqual([
      expect.objectContaining({ reqId: missingId, msg: 'request', tenant: 'alice', status: 404, code: 'NOT_FOUND' }),
    ])
  })

  it('picks its own id when a direct client sends one that is not a plain token', async () => {
    const response = await fetch(`${node.url}/healthz`, { headers: { 'x-request-id': 'evil\\nline' } })
    await response.arrayBuffer()
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('names the key store in the start-up line', async () => {
    expect(await node.log()).toMatch(/sealbox: ready — http:\/\/127\.0\.0\.1:\d+, production mode, key store file/)
  })
})

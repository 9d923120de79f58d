import type { SealboxClient } from '@sealbox/he-core/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { holdWorker, type SearchSide, searchSide, startServer, type TestServer, untilQueue } from './harness.ts'

const database = { rows: 300, dim: 6, seed: 7 }

/*
 * One worker, many clients: the fair scheduler serves tenants round-robin, so no
 * client and no tenant starves (Piscina's own queue, measured here, let half of 16
 * clients finish 1 request while others finished 23).
 */
describe('fairness with many concurrent clients', () => {
  let server: TestServer
  let side: SearchSide
  let query: Uint8Array
  beforeAll(async () => {
    // A generous request timeout: the flood waits behind a held worker for as long as the machine takes to queue it.
    server = await startServer({ WORKERS: 1, QUEUE_SIZE: 200, TENANT_QUEUE_SIZE: 100, REQUEST_TIMEOUT_MS: 120_000 })
    side = await searchSide(server.client, database)
    query = side.query(1).bytes
  })
  afterAll(async () => {
    side[Symbol.dispose]()
    await server.close()
  })

  async function tenantWithKeys(): Promise<SealboxClient> {
    const client = await server.tenant()
    await client.putKeySet('k', side.keys as Uint8Array)
    return client
  }

  it('16 closed-loop clients (16 tenants) each get a fair share of one worker', async () => {
    const clients = await Promise.all(Array.from({ length: 16 }, tenantWithKeys))
    const completed = clients.map(() => 0)
    // The window is counted in answers, not milliseconds: a slow machine stretches it
    // instead of leaving the clients with one answer each.
    const target = 4 * clients.length
    let total = 0
    await Promise.all(
      clients.map(async (client, i) => {
        while (total < target) {
          await client.search(query, { keySet: 'k' })
          completed[i] = (completed[i] ?? 0) + 1
          total++
        }
      }),
    )
    const min = Math.min(...completed)
    const max = Math.max(...completed)
    expect(min).toBeGreaterThanOrEqual(2)
    // Round-robin over tenants: every client within a couple of requests of the others.
    expect(max - min).toBeLessThanOrEqual(3)
  })

  it('a tenant flooding the queue delays another tenant’s request by only a few jobs', async () => {
    const flooder = await tenantWithKeys()
    const patient = await tenantWithKeys()
    // The only worker is held, so the flood and then the patient request queue in that order.
    const { session } = await server.client.createSession()
    const held = await holdWorker(server.url, session.token)
    const order: string[] = []
    const flood = Array.from({ length: 40 }, (_, i) =>
      flooder.search(query, { keySet: 'k' }).then(() => order.push(`flood-${i}`)),
    )
    await untilQueue(server.url, (state) => state.queued === 40, 'the 40 flood requests to queue')
    const single = patient.search(query, { keySet: 'k' }).then(() => order.push('patient'))
    await untilQueue(server.url, (state) => state.queued === 41, 'the patient request to queue')
    await held.release()
    expect((await held.done).status).toBe(200)
    await Promise.all([...flood, single])
    const position = order.indexOf('patient')
    expect(position).toBeGreaterThanOrEqual(0)
    expect(position).toBeLessThan(8)
  })
})

import { SealboxClient, ServerExecutorModeSchema } from '@sealbox/he-core/client'
import { median } from '@sealbox/he-core/testing'
import { ServerNode, waitFor } from '@sealbox/testkit'
import { describe, expect, it } from 'vitest'
import { searchSide } from './harness.ts'

const database = { rows: 8192, dim: 16, seed: 3 }

/** `/healthz` latencies, one request after the other, until `done()` says stop (at least `min` of them). */
async function probe(url: string, done: () => boolean, min: number): Promise<number[]> {
  const latencies: number[] = []
  while (latencies.length < min || !done()) {
    const start = performance.now()
    await (await fetch(`${url}/healthz`)).text()
    latencies.push(performance.now() - start)
  }
  return latencies
}

/**
 * The point of the product, measured in one run: while encrypted searches keep the
 * server busy, `/healthz` (answered by the event loop) stays near its idle latency
 * with worker threads, and grows towards one query's compute time when HE runs on
 * the loop. Only the ordering is asserted, each mode against its own idle baseline;
 * the numbers are printed. Windows are counted in events (probes, finished queries),
 * not milliseconds, so a slow machine stretches them instead of emptying them.
 */
describe('event-loop isolation: pool vs inline', () => {
  it('keeps /healthz near idle under HE load in pool mode, not in inline mode', async () => {
    const results: Record<string, { idle: number; loaded: number; compute: number }> = {}
    for (const mode of ServerExecutorModeSchema.extract(['pool', 'inline']).options) {
      const server = await ServerNode.start({
        name: `eventloop-${mode}`,
        env: {
          EXECUTOR: mode,
          WORKERS: '1',
          SYNTHETIC_ROWS: String(database.rows),
          SYNTHETIC_DIM: String(database.dim),
          SYNTHETIC_SEED: String(database.seed),
          QUEUE_SIZE: '64',
        },
      })
      try {
        const { client } = await new SealboxClient({ baseUrl: server.url }).createSession()
        using side = await searchSide(client, database)
        // The served search may need Galois keys: upload them whenever the config has any.
        const keys = side.keys ? { keySet: 'k' } : {}
        if (side.keys) await client.putKeySet('k', side.keys)
        const queries = [1, 2, 3, 4].map((seed) => side.query(seed).bytes)
        await client.search(queries[0] as Uint8Array, keys)
        const idle = await probe(server.url, () => true, 30)
        const compute: number[] = []
        let loading = true
        const load = queries.map(async (query) => {
          while (loading) compute.push((await client.search(query, keys)).timing.compute ?? 0)
        })
        // The load is on once the first of its searches has come back (the others wait behind it).
        await waitFor('the first search under load', () => compute.length > 0)
        const loadedFrom = compute.length
        const loaded = await probe(server.url, () => compute.length >= loadedFrom + 8, 10)
        loading = false
        await Promise.all(load)
        results[mode] = { idle: median(idle), loaded: median(loaded), compute: median(compute) }
      } finally {
        await server.stop()
      }
    }
    const pool = results.pool as { idle: number; loaded: number; compute: number }
    const inline = results.inline as { idle: number; loaded: number; compute: number }
    console.log(
      `/healthz p50 ms — pool: idle ${pool.idle.toFixed(1)}, under load ${pool.loaded.toFixed(1)}; inline: idle ${inline.idle.toFixed(1)}, under load ${inline.loaded.toFixed(1)}; compute per query ${pool.compute.toFixed(1)} (pool) / ${inline.compute.toFixed(1)} (inline)`,
    )
    expect(pool.loaded).toBeLessThan(inline.loaded)
    expect(inline.loaded).toBeGreaterThan(inline.idle)
    // Inline, a probe waits for the query on the loop: of the order of one query's compute time.
    expect(inline.loaded).toBeGreaterThan(inline.compute / 4)
    // Pool stays near its idle value: it grows by far less than inline's does.
    expect(pool.loaded - pool.idle).toBeLessThan((inline.loaded - inline.idle) / 2)
  })
})

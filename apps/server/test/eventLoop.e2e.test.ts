import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SealboxClient } from '@sealbox/he-core/client'
import { describe, expect, it } from 'vitest'
import { quantile } from './abuse/abuseHarness.ts'
import { searchSide, sleep, spawnServer } from './harness.ts'

const database = { rows: 8192, dim: 16, seed: 3 }

function median(values: readonly number[]): number {
  return quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  )
}

async function probe(url: string, durationMs: number): Promise<number[]> {
  const latencies: number[] = []
  const until = performance.now() + durationMs
  while (performance.now() < until) {
    const start = performance.now()
    await (await fetch(`${url}/healthz`)).text()
    latencies.push(performance.now() - start)
    await sleep(20)
  }
  return latencies
}

/**
 * The point of the product, measured in one run: while encrypted searches keep the
 * server busy, `/healthz` (answered by the event loop) stays near its idle latency
 * with worker threads, and grows towards one query's compute time when HE runs on
 * the loop. Only the ordering is asserted; the numbers are printed.
 */
describe('event-loop isolation: pool vs inline', () => {
  it('keeps /healthz near idle under HE load in pool mode, not in inline mode', async () => {
    const results: Record<string, { idle: number; loaded: number; compute: number }> = {}
    for (const mode of ['pool', 'inline'] as const) {
      const dataDir = await mkdtemp(join(tmpdir(), `sealbox-eventloop-${mode}-`))
      const server = await spawnServer({
        EXECUTOR: mode,
        WORKERS: '1',
        LOG_LEVEL: 'warn',
        SYNTHETIC_ROWS: String(database.rows),
        SYNTHETIC_DIM: String(database.dim),
        SYNTHETIC_SEED: String(database.seed),
        DATA_DIR: dataDir,
        QUEUE_SIZE: '64',
      })
      try {
        const { client } = await new SealboxClient({ baseUrl: server.url }).createSession()
        using side = await searchSide(client, database)
        const queries = [1, 2, 3, 4].map((seed) => side.query(seed).bytes)
        await client.search(queries[0] as Uint8Array)
        const idle = await probe(server.url, 600)
        const compute: number[] = []
        let loading = true
        const load = queries.map(async (query) => {
          while (loading) compute.push((await client.search(query)).timing.compute ?? 0)
        })
        await sleep(200)
        const loaded = await probe(server.url, 2000)
        loading = false
        await Promise.all(load)
        results[mode] = { idle: median(idle), loaded: median(loaded), compute: median(compute) }
      } finally {
        server.process.kill('SIGTERM')
        await server.exited
        await rm(dataDir, { recursive: true, force: true })
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

import { getHeContext } from '@sealbox/he-core'
import { SealboxClient } from '@sealbox/he-core/client'
import {
  PrivateSearchClient,
  plaintextSearchScores,
  type SearchConfig,
  searchProcessedMemory,
  syntheticSearchDatabase,
  syntheticSearchQuery,
} from '@sealbox/he-core/search'
import { ServerNode } from '@sealbox/testkit'
import { describe, expect, it } from 'vitest'

/*
 * Processing streams the database into the key-switching kernel's shared diagonal memory:
 * a node serves a database whose SEAL plaintexts would not fit one worker's heap, and no
 * worker's heap ever holds it. The heap cap is the engine's own (WORKER_HEAP_BYTES: an
 * allocation past it fails), so a worker that held the database could not have warmed.
 */

const MiB = 2 ** 20
const HEAP = 256 * MiB
const ROWS = 40_000
const DIM = 384
const SEED = 7

function gauge(text: string, name: string): number[] {
  return [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+)$`, 'gm'))].map((m) => Number(m[1]))
}

describe('a database streamed into the shared diagonal memory', () => {
  it('is served exactly by workers whose 256 MiB heaps could not hold its SEAL plaintexts', async () => {
    const node = await ServerNode.start({
      name: 'streamed',
      env: {
        WORKERS: '2',
        DATABASE: 'synthetic',
        SYNTHETIC_ROWS: String(ROWS),
        SYNTHETIC_DIM: String(DIM),
        SYNTHETIC_SEED: String(SEED),
        SEARCH_CACHE: 'false',
        WORKER_HEAP_BYTES: String(HEAP),
        WORKER_HEAP_RECYCLE_BYTES: String(192 * MiB),
        KEY_CACHE_BYTES: String(32 * MiB),
        LOG_LEVEL: 'info',
      },
      readyTimeoutMs: 300_000,
    })
    try {
      const client = (await new SealboxClient({ baseUrl: node.url }).createSession()).client
      const { database: facts, fingerprint: _fingerprint, ...rest } = await client.searchConfig()
      const config: SearchConfig = rest
      const memory = searchProcessedMemory(config)
      expect(memory.form).toBe('kernel')
      // As SEAL plaintexts (8-byte words, 2 data primes), more than a worker's whole heap.
      const sealBytes = memory.diagonals * config.polyModulusDegree * 8 * 2
      expect(sealBytes).toBeGreaterThan(HEAP)
      expect(facts.processing).toMatchObject({ form: 'kernel', bytes: memory.bytes })
      const ctx = await getHeContext(config.params)
      using search = PrivateSearchClient.create(ctx, config)
      const keys = search.evaluationKeys()
      if (keys) await client.putKeySet('search', keys)
      const oracleDatabase = syntheticSearchDatabase({ rows: ROWS, dimension: DIM, seed: SEED })
      for (const seed of [1, 2]) {
        const query = syntheticSearchQuery(DIM, seed)
        const result = await client.search(search.encryptQuery(query), keys ? { keySet: 'search' } : {})
        expect(Array.from(search.decryptScores(result.responses).scores)).toEqual(
          Array.from(plaintextSearchScores(config, oracleDatabase, query)),
        )
      }
      const metrics = await (await fetch(`${node.url}/metrics`)).text()
      // One copy of the residues in the node, outside every heap.
      expect(gauge(metrics, 'sealbox_search_diagonal_bytes')).toEqual([expect.any(Number)])
      expect(gauge(metrics, 'sealbox_search_diagonal_bytes')[0]).toBeGreaterThanOrEqual(memory.bytes)
      const heaps = gauge(metrics, 'sealbox_worker_wasm_heap_bytes')
      expect(heaps.length).toBeGreaterThan(0)
      for (const heap of heaps) expect(heap).toBeLessThanOrEqual(HEAP)
      // Every warm worker's heap (the builder's too) was below the cap, far below the SEAL count.
      const warm = (await node.log())
        .split('\n')
        .filter((line) => line.startsWith('{') && line.includes('worker warm'))
        .map((line) => JSON.parse(line) as { heapBytes?: number })
      expect(warm.length).toBeGreaterThanOrEqual(2)
      for (const { heapBytes } of warm) {
        expect(heapBytes).toBeGreaterThan(0)
        expect(heapBytes).toBeLessThan(sealBytes / 2)
      }
    } finally {
      await node.stop()
    }
  })
})

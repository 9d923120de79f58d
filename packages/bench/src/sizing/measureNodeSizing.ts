import { getHeContext } from '@sealbox/he-core'
import { SealboxClient } from '@sealbox/he-core/client'
import { PrivateSearchClient, syntheticSearchQuery, verifySearchConfig } from '@sealbox/he-core/search'
import { ServerNode, waitFor } from '@sealbox/testkit'
import { BenchError } from '../BenchError.ts'

/** One database shape to size: a synthetic database of `rows` × `dimension`. */
export interface SizingShape {
  rows: number
  dimension: number
}

/** What one node (one worker) serving a shape measured. */
export interface NodeSizing extends SizingShape {
  /** Spawn → `/readyz` 200. */
  readyMs: number
  /** The worker's own warm-up (SEAL and the database processed), from its log. */
  warmMs: number
  /** A warm worker's WASM heap before any job, from the start-up heap plan. */
  freshHeapBytes: number
  /** The node process's RSS after the load, from `/metrics`. */
  rssBytes: number
  /** Searches per second with `inFlight` requests in flight. */
  searchesPerSecond: number
  searches: number
}

const TOKEN = 'sizing-token-0123456789abcdefghijKLMNOPQR'

/** The first JSON log line of `node` that has `field`, parsed; pino writes asynchronously, so it may follow `/readyz`. */
async function logLine(node: ServerNode, field: string): Promise<Record<string, unknown>> {
  const find = async () =>
    (await node.log()).split('\n').find((text) => text.startsWith('{') && text.includes(`"${field}"`))
  await waitFor(`a log line with ${field}`, async () => (await find()) !== undefined).catch((error: unknown) => {
    throw new BenchError('ENGINE_FAILED', `the node's log has no line with ${field}`, { cause: error })
  })
  return JSON.parse((await find()) as string) as Record<string, unknown>
}

/**
 * Starts a real production node (`ServerNode`, one worker, server-side baby steps) over a
 * synthetic database of `shape`, reads its warm-up and fresh heap from its log, uploads a
 * key set and keeps `inFlight` searches running for `seconds` through `SealboxClient`, then
 * reads the node's RSS from `/metrics`. The figures of deploy/README.md's Sizing section.
 */
export async function measureNodeSizing(
  shape: SizingShape,
  options: { seconds: number; inFlight: number },
): Promise<NodeSizing> {
  const started = performance.now()
  const node = await ServerNode.start({
    name: `sizing-${shape.rows}x${shape.dimension}`,
    env: {
      MODE: 'production',
      WORKERS: '1',
      TOKENS: `bench:${TOKEN}`,
      SYNTHETIC_ROWS: String(shape.rows),
      SYNTHETIC_DIM: String(shape.dimension),
      SEARCH_BABY_STEPS: 'server',
      LOG_LEVEL: 'info',
    },
    readyTimeoutMs: 1_800_000,
  })
  try {
    const readyMs = performance.now() - started
    const warmMs = Number((await logLine(node, 'warmMs')).warmMs)
    const freshHeapBytes = Number((await logLine(node, 'freshBytes')).freshBytes)
    const client = new SealboxClient({ baseUrl: node.url, token: TOKEN })
    const config = verifySearchConfig(await client.searchConfig())
    using search = PrivateSearchClient.create(await getHeContext(config.params), config)
    const keys = search.evaluationKeys()
    if (keys) await client.putKeySet('sizing', keys)
    const query = search.encryptQuery(syntheticSearchQuery(shape.dimension, 3))
    const call = () => client.search(query, keys ? { keySet: 'sizing' } : {})
    await call()
    let searches = 0
    const from = performance.now()
    const until = from + options.seconds * 1000
    await Promise.all(
      Array.from({ length: options.inFlight }, async () => {
        while (performance.now() < until) {
          await call()
          searches++
        }
      }),
    )
    const searchesPerSecond = searches / ((performance.now() - from) / 1000)
    const metrics = await (await fetch(`${node.url}/metrics`)).text()
    const rssBytes = Number(/process_resident_memory_bytes (\d+)/.exec(metrics)?.[1] ?? Number.NaN)
    return { ...shape, readyMs, warmMs, freshHeapBytes, rssBytes, searchesPerSecond, searches }
  } finally {
    await node.stop()
  }
}

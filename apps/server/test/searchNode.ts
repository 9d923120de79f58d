import { SealboxClient } from '@sealbox/he-core/client'
import { crc32, decodeBundle } from '@sealbox/he-core/envelope'
import {
  type PrivateSearchClient,
  plaintextSearchScores,
  type SearchConfig,
  type SearchDatabase,
  syntheticSearchDatabase,
  syntheticSearchQuery,
} from '@sealbox/he-core/search'
import { ServerNode } from '@sealbox/testkit'
import { expect } from 'vitest'

/*
 * A search server in its own process for the forged-input suites: one production tenant,
 * one worker, a synthetic database and the search settings a suite asks for; the served
 * config and the probes those suites read (the raw answer to a forged body, the worker's
 * SEAL exception gauge).
 */

/** The answer to a raw request: its status and coded error, if any. */
export interface RawAnswer {
  status: number
  code?: string
  message?: string
}

/** A running search server, its tenant's client and what it serves. */
export interface SearchNode {
  node: ServerNode
  /** The production tenant's bearer token. */
  token: string
  client: SealboxClient
  /** The served search config (the database's facts and the fingerprint left out). */
  config: SearchConfig
  /** The same synthetic database the server processed (the plaintext oracle's input). */
  database: SearchDatabase
  /** Sends `body` as is (no client-side checks) and returns the status and coded error. */
  send(method: 'POST' | 'PUT', path: string, body: Uint8Array): Promise<RawAnswer>
  /** SEAL exceptions the server's workers have caught so far (their gauge on /metrics). */
  sealExceptions(): Promise<number>
  stop(): Promise<void>
}

/** What a suite's server serves: the synthetic database's shape and seed, and any `SEARCH_*` settings. */
export interface SearchNodeOptions {
  name: string
  rows: number
  dimension: number
  seed: number
  env?: Record<string, string>
}

/** Starts a `ServerNode` (MODE=production, one worker) serving a synthetic database, and reads its search config. */
export async function startSearchNode(options: SearchNodeOptions): Promise<SearchNode> {
  const token = `token-of-${options.name}-0123456789abcdefghijkl`
  const node = await ServerNode.start({
    name: options.name,
    env: {
      MODE: 'production',
      TOKENS: `${options.name}:${token}`,
      WORKERS: '1',
      SYNTHETIC_ROWS: String(options.rows),
      SYNTHETIC_DIM: String(options.dimension),
      SYNTHETIC_SEED: String(options.seed),
      ...options.env,
    },
  })
  try {
    const client = new SealboxClient({ baseUrl: node.url, token })
    const { database: _facts, fingerprint: _fingerprint, ...config } = await client.searchConfig()
    const database = syntheticSearchDatabase({ rows: options.rows, dimension: options.dimension, seed: options.seed })
    return {
      node,
      token,
      client,
      config,
      database,
      async send(method, path, body) {
        const response = await fetch(`${node.url}${path}`, {
          method,
          body: body as BodyInit,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
        })
        // An answer (a binary bundle) has no error to read.
        if (!response.headers.get('content-type')?.includes('json')) return { status: response.status }
        const json = (await response.json()) as { error?: { code: string; message: string } }
        return { status: response.status, ...json.error }
      },
      async sealExceptions() {
        const text = await (await fetch(`${node.url}/metrics`)).text()
        const values = [...text.matchAll(/^sealbox_worker_seal_exceptions\{[^}]*\} (\d+)/gm)].map((m) => Number(m[1]))
        return values.reduce((sum, value) => sum + value, 0)
      },
      stop: () => node.stop().then(() => undefined),
    }
  } catch (error) {
    await node.stop()
    throw error
  }
}

/** Recomputes an envelope's (or a bundle's) CRC-32, its last 4 bytes, after an edit. */
export function fixEnvelopeCrc(bytes: Uint8Array): void {
  new DataView(bytes.buffer, bytes.byteOffset + bytes.byteLength - 4, 4).setUint32(
    0,
    crc32(bytes.subarray(0, bytes.byteLength - 4)),
    true,
  )
}

/** A copy of a query bundle with its first item's payload edited, the item's and the bundle's checksums recomputed. */
export function forgeQueryItem(query: Uint8Array, edit: (payload: Uint8Array, view: DataView) => void): Uint8Array {
  const bytes = query.slice()
  const item = decodeBundle(bytes, { itemKind: 'ciphertext' }).items[0]
  if (!item) throw new Error('the query has no item')
  edit(item.payload, new DataView(item.payload.buffer, item.payload.byteOffset, item.payload.byteLength))
  fixEnvelopeCrc(item.bytes)
  fixEnvelopeCrc(bytes)
  return bytes
}

/**
 * Searches for synthetic query vector `seed` through the tenant's client (with `keySet`'s
 * keys, encrypted by `encrypt`, by default the client's own encoding) and expects every
 * score to be the plaintext oracle's and no unused slot to decrypt to anything but 0.
 */
export async function expectExactSearch(
  server: SearchNode,
  search: PrivateSearchClient,
  seed: number,
  options: { keySet?: string; encrypt?: (vector: Float64Array) => Uint8Array } = {},
): Promise<void> {
  const vector = syntheticSearchQuery(server.config.dimension, seed)
  const query = options.encrypt ? options.encrypt(vector) : search.encryptQuery(vector)
  const result = await server.client.search(query, options.keySet ? { keySet: options.keySet } : {})
  const scores = search.decryptScores(result.responses)
  expect(Array.from(scores.scores)).toEqual(Array.from(plaintextSearchScores(server.config, server.database, vector)))
  expect(scores.strayNonZeroSlots).toBe(0)
}

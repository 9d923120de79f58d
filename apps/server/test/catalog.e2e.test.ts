import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getHeContext } from '@sealbox/he-core'
import { SEARCH_CATALOG_MAX_PAGE, SealboxClient } from '@sealbox/he-core/client'
import {
  PrivateSearchClient,
  parseSearchDatabase,
  plaintextSearchScores,
  type SearchConfig,
  topKIndices,
} from '@sealbox/he-core/search'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { raw, startServer, type TestServer } from './harness.ts'

/*
 * A JSONL database with ids and unicode metadata, served by a real server: a client
 * reads the catalog (paged, ETag-revalidated), searches, decrypts, and names its hits
 * by id and metadata — checked against the plaintext oracle of the same file.
 */

const ROWS = SEARCH_CATALOG_MAX_PAGE + 137 // two pages
const DIM = 8

/** Row `i`: a deterministic unit-ish vector, a string id, and metadata in several scripts (every 7th row has none). */
function row(i: number): { id: string; vector: number[]; metadata?: unknown } {
  const vector = Array.from(
    { length: DIM },
    (_, j) =>
      Math.sin(i * 12.9898 + j * 78.233) * 43758.5453 -
      Math.floor(Math.sin(i * 12.9898 + j * 78.233) * 43758.5453) -
      0.5,
  )
  const id = `doc-${i.toString(36)}-ü`
  if (i % 7 === 3) return { id, vector }
  return { id, vector, metadata: { title: `Café №${i} — 東京 🚀`, tags: ['ünïcödé', 'Ωμέγα', `#${i}`], n: i } }
}

describe('search catalog: hits named by id and metadata, end to end', () => {
  let server: TestServer
  let dir: string
  let file: string
  let text: string

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sealbox-catalog-'))
    file = join(dir, 'docs.jsonl')
    text = `${Array.from({ length: ROWS }, (_, i) => JSON.stringify(row(i))).join('\n')}\n`
    await writeFile(file, text, 'utf8')
    server = await startServer({ DATABASE: file, SEARCH_BABY_STEPS: 'client' })
  })
  afterAll(async () => {
    await server?.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('ranks decrypted hits with the ids and metadata of the plaintext oracle', async () => {
    const statuses: number[] = []
    const counting: typeof fetch = async (input, init) => {
      const response = await fetch(input, init)
      if (String(input).includes('/search/catalog')) statuses.push(response.status)
      return response
    }
    const { client } = await new SealboxClient({ baseUrl: server.url, fetch: counting }).createSession()
    const served = await client.searchConfig()
    // The file's name, never its path on the server.
    expect(served.database.source).toEqual({ type: 'file', name: 'docs.jsonl', format: 'jsonl' })
    const { database: _facts, fingerprint: _fingerprint, ...rest } = served
    const config: SearchConfig = rest

    const catalog = await client.searchCatalog()
    expect(catalog.configId).toBe(config.configId)
    expect(catalog.ids).toHaveLength(ROWS)
    expect(statuses).toEqual([200, 200])
    // Again: every page revalidated by its ETag, nothing downloaded twice.
    const again = await client.searchCatalog()
    expect(again.ids).toEqual(catalog.ids)
    expect(statuses).toEqual([200, 200, 304, 304])

    const plain = parseSearchDatabase(new TextEncoder().encode(text), 'jsonl')
    const ctx = await getHeContext(config.params)
    using search = PrivateSearchClient.create(ctx, config, { catalog })
    const keys = search.evaluationKeys()
    if (keys) await client.putKeySet('k', keys)
    for (const target of [0, 3, SEARCH_CATALOG_MAX_PAGE + 100]) {
      const vector = row(target).vector
      const norm = Math.hypot(...vector)
      const query = vector.map((v) => v / norm)
      const result = await client.search(search.encryptQuery(query), keys ? { keySet: 'k' } : {})
      const { hits } = search.rank(result.responses[0] as Uint8Array, 5)
      const expected = topKIndices(plaintextSearchScores(config, plain, query), 5)
      expect(hits.map((hit) => hit.row)).toEqual(expected)
      expect(hits[0]?.row).toBe(target) // a row is its own nearest neighbour
      for (const hit of hits) {
        expect(hit.id).toBe(row(hit.row).id)
        expect(hit.metadata).toEqual(row(hit.row).metadata)
      }
    }
  })

  it('pages by offset and limit, refuses bad bounds, and answers 304 to a matching ETag', async () => {
    const page = await raw(`${server.url}/api/v1/search/catalog?offset=${ROWS - 2}&limit=10`)
    expect(page.status).toBe(200)
    expect(page.json).toMatchObject({ total: ROWS, offset: ROWS - 2, ids: [row(ROWS - 2).id, row(ROWS - 1).id] })
    const past = await raw(`${server.url}/api/v1/search/catalog?offset=${ROWS + 5}`)
    expect([past.status, (past.json.ids as unknown[]).length]).toEqual([200, 0])
    for (const query of [`limit=${SEARCH_CATALOG_MAX_PAGE + 1}`, 'offset=-1', 'limit=abc', 'extra=1']) {
      const bad = await raw(`${server.url}/api/v1/search/catalog?${query}`)
      expect([bad.status, bad.json.error?.code], query).toEqual([400, 'INVALID_INPUT'])
    }
    const etag = page.headers.get('etag') as string
    const revalidated = await fetch(`${server.url}/api/v1/search/catalog?offset=${ROWS - 2}&limit=10`, {
      headers: { 'if-none-match': etag },
    })
    expect(revalidated.status).toBe(304)
    const otherPage = await fetch(`${server.url}/api/v1/search/catalog?offset=0&limit=10`, {
      headers: { 'if-none-match': etag },
    })
    expect(otherPage.status).toBe(200)
  })
})

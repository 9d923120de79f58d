import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getHeContext } from '@sealbox/he-core'
import { SealboxClient } from '@sealbox/he-core/client'
import {
  decodeSearchResponse,
  encodeNpyFloat32,
  PrivateSearchClient,
  parseNpy,
  plaintextSearchScores,
  type SearchConfig,
  type SearchDatabase,
  syntheticSearchDatabase,
  syntheticSearchQuery,
} from '@sealbox/he-core/search'
import { ServerNode } from '@sealbox/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/*
 * The processed-database cache as an operator meets it: `node src/main.ts` serving a
 * .npy file from one DATA_DIR, restarted. Every answer is checked against the plaintext
 * oracle of the vectors as the file holds them (float32).
 */

const ROWS = 9000 // two full blocks and a folded one at n = 4096
const DIM = 16
const CLIENT_SIDE = { SEARCH_BABY_STEPS: 'client', SEARCH_BABY_STEP: '16' }

interface Warm {
  outcome: string
  reason?: string
  cachedBlocks: number
  blocks: number
}

let dir: string
let dataDir: string
let dbPath: string
let database: SearchDatabase

async function writeNpy(path: string, seed: number): Promise<SearchDatabase> {
  const synthetic = syntheticSearchDatabase({ rows: ROWS, dimension: DIM, seed })
  const bytes = encodeNpyFloat32(synthetic.vectors, ROWS, DIM)
  await writeFile(path, bytes)
  return parseNpy(bytes)
}

/** Starts a node on `dataDir` serving `path`, reads how its worker warmed up, checks one query exactly, stops it. */
async function serve(path: string, oracle: SearchDatabase, env: Record<string, string> = CLIENT_SIDE): Promise<Warm> {
  const node = await ServerNode.start({
    name: 'cache',
    dataDir,
    env: { WORKERS: '1', DATABASE: path, LOG_LEVEL: 'info', ...env },
  })
  try {
    const client = (await new SealboxClient({ baseUrl: node.url }).createSession()).client
    const { database: facts, fingerprint: _fingerprint, ...rest } = await client.searchConfig()
    const config: SearchConfig = rest
    const ctx = await getHeContext(config.params)
    using search = PrivateSearchClient.create(ctx, config)
    const keys = search.evaluationKeys()
    if (keys) await client.putKeySet('search', keys)
    const query = syntheticSearchQuery(DIM, 3)
    const result = await client.search(search.encryptQuery(query), keys ? { keySet: 'search' } : {})
    const scores = search.decryptScores(result.responses)
    expect(Array.from(scores.scores)).toEqual(Array.from(plaintextSearchScores(config, oracle, query)))
    const log = (await node.log()).split('\n').filter((line) => line.startsWith('{'))
    const warm = log.map((line) => JSON.parse(line)).find((entry) => entry.cache !== undefined)
    expect(warm, 'the warm worker logs how the cache served it').toBeDefined()
    expect(warm.cachedBlocks).toBe(facts.processing.cachedBlocks)
    const progress = log.filter((line) => line.includes('processing the database'))
    expect(progress.length, 'progress lines').toBeGreaterThanOrEqual(1)
    return {
      outcome: warm.cache.outcome,
      reason: warm.cache.reason,
      cachedBlocks: warm.cachedBlocks,
      blocks: warm.blocks,
    }
  } finally {
    await node.stop()
  }
}

async function cacheFiles(): Promise<string[]> {
  return (await readdir(join(dataDir, 'search-cache'))).sort()
}

describe('the processed-database cache across restarts', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sealbox-processed-cache-'))
    dataDir = join(dir, 'data')
    dbPath = join(dir, 'vectors.npy')
    database = await writeNpy(dbPath, 21)
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('a first start processes and writes the cache; a restart reads every block from it', async () => {
    expect(await serve(dbPath, database)).toEqual({ outcome: 'written', cachedBlocks: 0, blocks: 3 })
    expect(await cacheFiles()).toHaveLength(1)
    expect(await serve(dbPath, database)).toEqual({ outcome: 'hit', cachedBlocks: 3, blocks: 3 })
  })

  it('a flipped byte is found by its block checksum: processed again, rewritten, never served', async () => {
    const [name] = await cacheFiles()
    const file = join(dataDir, 'search-cache', name as string)
    const bytes = await readFile(file)
    // Inside block 1's payload: block 0 (read and checked first) is kept, the rest processed again.
    const at = Math.floor(bytes.byteLength / 2)
    bytes[at] = (bytes[at] as number) ^ 0x40
    await writeFile(file, bytes)
    const damaged = await serve(dbPath, database)
    expect(damaged).toMatchObject({ outcome: 'rebuilt', cachedBlocks: 1, blocks: 3 })
    expect(damaged.reason).toMatch(/^block 1: checksum mismatch/)
    expect(await serve(dbPath, database)).toEqual({ outcome: 'hit', cachedBlocks: 3, blocks: 3 })
  })

  it('a truncated file is refused at the missing block and rewritten', async () => {
    const [name] = await cacheFiles()
    const file = join(dataDir, 'search-cache', name as string)
    const bytes = await readFile(file)
    await writeFile(file, bytes.subarray(0, bytes.byteLength - 1000))
    const cut = await serve(dbPath, database)
    expect(cut).toMatchObject({ outcome: 'rebuilt', cachedBlocks: 2, blocks: 3 })
    expect(cut.reason).toMatch(/^block 2: file truncated/)
    expect(await serve(dbPath, database)).toEqual({ outcome: 'hit', cachedBlocks: 3, blocks: 3 })
  })

  it('another database of the same shape, or another config, never reuses the cache', async () => {
    const otherPath = join(dir, 'other.npy')
    const other = await writeNpy(otherPath, 22)
    expect(await serve(otherPath, other)).toEqual({ outcome: 'written', cachedBlocks: 0, blocks: 3 })
    // The same file's bytes changed in place (same name, same shape): a new content hash.
    const changed = await writeNpy(dbPath, 23)
    expect(await serve(dbPath, changed)).toEqual({ outcome: 'written', cachedBlocks: 0, blocks: 3 })
    // Server-side baby steps, g = 4: another config id (and Galois keys).
    const serverSide = { SEARCH_BABY_STEPS: 'server', SEARCH_BABY_STEP: '4' }
    expect(await serve(dbPath, changed, serverSide)).toEqual({ outcome: 'written', cachedBlocks: 0, blocks: 3 })
    expect(await serve(dbPath, changed, serverSide)).toEqual({ outcome: 'hit', cachedBlocks: 3, blocks: 3 })
    expect(await cacheFiles()).toHaveLength(4)
  })

  it("the key-switching kernel's form: u32 residues (half of SEAL's saves), checked by the same block checksums", async () => {
    const serverSide = { SEARCH_BABY_STEPS: 'server', SEARCH_BABY_STEP: '4' }
    const changed = await writeNpy(dbPath, 23)
    // Written here when this test runs alone; read back when the test before wrote it.
    expect((await serve(dbPath, changed, serverSide)).outcome).toMatch(/^(written|hit)$/)
    const [u32] = (await cacheFiles()).filter((name) => name.endsWith('-u32.sbxpdb'))
    expect(u32, 'the server-side config streamed into the kernel and kept its form').toBeDefined()
    const file = join(dataDir, 'search-cache', u32 as string)
    const bytes = await readFile(file)
    // Two full blocks of D' = 16 diagonals and a folded one of 8, × 2 primes × n = 4096 × 4
    // bytes, plus headers and checksums (SEAL's saves would be twice that).
    const residues = (16 + 16 + 8) * 2 * 4096 * 4
    expect(bytes.byteLength).toBeGreaterThan(residues)
    expect(bytes.byteLength).toBeLessThan(residues + 64 * 1024)
    const at = Math.floor(bytes.byteLength / 2)
    bytes[at] = (bytes[at] as number) ^ 0x40
    await writeFile(file, bytes)
    const damaged = await serve(dbPath, changed, serverSide)
    expect(damaged).toMatchObject({ outcome: 'rebuilt', cachedBlocks: 1, blocks: 3 })
    expect(damaged.reason).toMatch(/^block 1: checksum mismatch/)
    expect(await serve(dbPath, changed, serverSide)).toEqual({ outcome: 'hit', cachedBlocks: 3, blocks: 3 })
  })

  it('a shard keeps its own blocks in a file of its own, read back on restart', async () => {
    const before = await cacheFiles()
    /** Starts shard 1/2 on `dataDir`, checks one search answers exactly its blocks, and returns how it warmed. */
    const serveShard = async () => {
      const node = await ServerNode.start({
        name: 'cache-shard',
        dataDir,
        env: { WORKERS: '1', DATABASE: dbPath, SEARCH_SHARD: '1/2', LOG_LEVEL: 'info', ...CLIENT_SIDE },
      })
      try {
        const client = (await new SealboxClient({ baseUrl: node.url }).createSession()).client
        const { database: facts, fingerprint, shard, shards: _shards, ...config } = await client.searchConfig()
        expect(shard).toEqual({ index: 1, count: 2, blocks: { start: 1, end: 3 }, rows: { start: 4096, end: ROWS } })
        const ctx = await getHeContext(config.params)
        using search = PrivateSearchClient.create(ctx, config)
        const { responses } = await client.search(search.encryptQuery(syntheticSearchQuery(DIM, 3)))
        // Blocks 1 and 2 exactly, each once: what the shard holds, for the whole database's config.
        const { blocks } = decodeSearchResponse(responses[0] as Uint8Array, {
          fingerprint,
          keySetId: search.keySet.id,
          configId: config.configId,
          blockCount: config.blocks.length,
          blocks: { start: 1, end: 3 },
        })
        expect(blocks.map((block) => block.index)).toEqual([1, 2])
        return facts.processing.cachedBlocks
      } finally {
        await node.stop()
      }
    }
    expect(await serveShard()).toBe(0)
    const files = await cacheFiles()
    expect(files.filter((name) => !before.includes(name))).toEqual([
      expect.stringMatching(/-shard1of2-(ntt|coeff|u32)\.sbxpdb$/),
    ])
    expect(await serveShard()).toBe(2)
    expect(await cacheFiles()).toEqual(files)
  })

  it('SEARCH_CACHE=false processes every start and writes nothing', async () => {
    const before = await cacheFiles()
    const node = await ServerNode.start({
      name: 'no-cache',
      dataDir,
      env: { WORKERS: '1', DATABASE: dbPath, SEARCH_CACHE: 'false', ...CLIENT_SIDE },
    })
    try {
      const facts = (await new SealboxClient({ baseUrl: node.url }).searchConfig()).database
      expect(facts.processing.cachedBlocks).toBe(0)
    } finally {
      await node.stop()
    }
    expect(await cacheFiles()).toEqual(before)
  })
})

import { getHeContext, KeySet } from '@sealbox/he-core'
import { SealboxClient } from '@sealbox/he-core/client'
import {
  PrivateSearchClient,
  plaintextSearchScores,
  type SearchConfig,
  syntheticSearchDatabase,
  syntheticSearchQuery,
  verifySearchConfig,
} from '@sealbox/he-core/search'
import { ServerNode } from '@sealbox/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keySwitchingKeyBytes } from '../src/app/programAdmission.ts'

/*
 * A search the key-switching kernel does not run (BFV: SEAL rotates) keeps SEAL's keys,
 * and loads only the Galois elements its queries use (issue 33 H1) beside the kernel
 * form of issue 31: the upload (which loads the keys into SEAL to check them) leaves
 * SEAL's full form of the search's part in the node's bytes cache, so the first search
 * on each worker loads it from there and no search reads the store; the part is what the
 * node's bytes cache holds, never the whole set with the upload's extra elements.
 */

const ROWS = 600
const DIM = 16
const TOKEN = 'token-of-bfv-0123456789abcdefghijkl'
/** Galois steps beyond the search's in the uploaded key set: the whole set is 2.5× the part. */
const EXTRA_STEPS = [2, 3, 4]

let node: ServerNode
let config: SearchConfig
const database = syntheticSearchDatabase({ rows: ROWS, dimension: DIM, seed: 1 })

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${node.url}/metrics`)).text()
  let sum = 0
  for (const match of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+)$`, 'gm'))) sum += Number(match[1])
  return sum
}

beforeAll(async () => {
  node = await ServerNode.start({
    name: 'seal-search-keys',
    env: {
      MODE: 'production',
      TOKENS: `bfv:${TOKEN}`,
      WORKERS: '2',
      SYNTHETIC_ROWS: String(ROWS),
      SYNTHETIC_DIM: String(DIM),
      SEARCH_SCHEME: 'bfv',
      SEARCH_BABY_STEPS: 'server',
      SCHEDULING: 'round-robin',
    },
  })
  config = verifySearchConfig(await new SealboxClient({ baseUrl: node.url }).searchConfig())
})

afterAll(async () => {
  await node?.stop()
})

describe('a search in SEAL: SEAL keys of its Galois elements only', () => {
  it('serves each worker the part the upload prepared, from the bytes cache; never the store', async () => {
    expect(config.params.scheme).toBe('bfv')
    const ctx = await getHeContext(config.params)
    const steps = [...new Set([...config.galoisSteps, ...EXTRA_STEPS])]
    using keySet = KeySet.generate(ctx, { galois: { steps } })
    using search = PrivateSearchClient.create(ctx, config, { keySet })
    const client = new SealboxClient({ baseUrl: node.url, token: TOKEN })
    await client.putKeySet('main', search.evaluationKeys() as Uint8Array)
    const part = keySwitchingKeyBytes(config.params, config.galoisSteps.length)
    const whole = keySwitchingKeyBytes(config.params, steps.length)
    // The upload leaves SEAL's full form of the search's part in the node's bytes cache.
    const prepared = await metric('sealbox_key_bytes_cache_bytes')
    expect(prepared).toBeGreaterThanOrEqual(part)
    expect(prepared).toBeLessThan(part + 64 * 1024)
    const tiers: string[] = []
    for (const seed of [1, 2, 3, 4]) {
      const vector = syntheticSearchQuery(DIM, seed)
      const result = await client.search(search.encryptQuery(vector), { keySet: 'main' })
      expect([...search.decryptScores(result.responses).scores]).toEqual([
        ...plaintextSearchScores(config, database, vector),
      ])
      const timing = result.timing
      tiers.push(timing.keyload !== undefined ? 'store' : timing.keydeserialize === undefined ? 'worker' : 'bytes')
    }
    // Round-robin over two workers: each from bytes once, then held.
    expect(tiers).toEqual(['bytes', 'bytes', 'worker', 'worker'])
    expect(await metric('sealbox_key_tier_lookups_total')).toBe(4)
    // The node keeps SEAL's full form of the search's elements: the part, not the whole set.
    const cached = await metric('sealbox_key_bytes_cache_bytes')
    expect(cached).toBeGreaterThanOrEqual(part)
    expect(cached).toBeLessThan(part + 64 * 1024)
    expect(cached).toBeLessThan(whole)
    expect(await metric('sealbox_key_bytes_cache_entries')).toBe(1)
  })
})

import { describe, expect, it } from 'vitest'
import { loadSealObject } from '../envelope/loadSealObject.ts'
import { withScope } from '../scope/SealScope.ts'
import { plaintextSearchScores } from './plaintextSearchScores.ts'
import type { SearchConfigInput } from './SearchConfigInput.ts'
import type { SearchParamsProfileName } from './searchParams.ts'
import { searchFixture } from './searchTestKit.ts'
import { decodeSearchResponse } from './searchWire.ts'
import { syntheticSearchQuery } from './syntheticSearchDatabase.ts'
import { topKIndices } from './topK.ts'

type Shape = readonly [rows: number, dimension: number]

const SMALL: Shape = [100, 3] // one folded block, D not a power of two
const MEDIUM: Shape = [5000, 10] // a full block and a folded one, D' = 16 > D
const EXACT: Shape = [8192, 16] // V a multiple of n = 4096
const LARGE: Shape = [10_000, 16] // the benchmark shape

function babySteps(dimension: number): number[] {
  let padded = 1
  while (padded < dimension) padded *= 2
  return [...new Set([1, 2, 4, 8, padded].filter((g) => g <= padded))]
}

interface Case {
  params: SearchParamsProfileName
  scheme: 'bgv' | 'bfv'
  side: 'client' | 'server'
  shape: Shape
  g: number
  nttForm: boolean
}

function cases(
  params: SearchParamsProfileName[],
  shapes: [Shape, number[] | 'all'][],
  forms: boolean[],
  sides: ('client' | 'server')[] = ['client', 'server'],
): Case[] {
  const out: Case[] = []
  for (const p of params)
    for (const scheme of ['bgv', 'bfv'] as const)
      for (const side of sides)
        for (const nttForm of forms)
          for (const [shape, gs] of shapes)
            for (const g of gs === 'all' ? babySteps(shape[1]) : gs)
              out.push({ params: p, scheme, side, shape, g, nttForm })
  return out
}

function name(c: Case): string {
  return `${c.params} ${c.scheme} ${c.side}-side g=${c.g} V=${c.shape[0]} D=${c.shape[1]} ${c.nttForm ? 'NTT' : 'coefficient'} form`
}

/**
 * Encrypted scores must equal the plaintext oracle exactly for every row, stray slots
 * must decrypt to 0, the responses must sit at the last level with noise budget left,
 * and the top-k must be the plaintext ranking.
 */
async function checkCase(c: Case): Promise<void> {
  const input: SearchConfigInput = {
    params: c.params,
    scheme: c.scheme,
    babySteps: c.side,
    babyStep: c.g,
    rows: c.shape[0],
    dimension: c.shape[1],
    nttForm: c.nttForm,
  }
  using fixture = await searchFixture(input)
  const { config, client, index, database, ctx } = fixture
  // n4096's primes are below 2^31: BGV in NTT form runs in a WebAssembly kernel, the rest in SEAL.
  const kernel = config.galoisSteps.length > 0 ? 'keySwitch' : 'dyadic'
  expect(index.kernel).toBe(c.params === 'n4096' && c.scheme === 'bgv' && c.nttForm ? kernel : 'seal')
  const query = syntheticSearchQuery(config.dimension, c.g * 7 + c.shape[0])
  const { response } = index.evaluate(client.encryptQuery(query), fixture.keys)
  const result = client.decryptScores(response)
  const oracle = plaintextSearchScores(config, database, query)
  const mismatch = oracle.findIndex((score, row) => result.scores[row] !== score)
  expect(mismatch, `first wrong row of ${name(c)}`).toBe(-1)
  expect(result.strayNonZeroSlots).toBe(0)
  expect(result.noiseBudgets).toHaveLength(config.blocks.length)
  expect(result.minNoiseBudget).toBeGreaterThan(0)
  const decoded = decodeSearchResponse(response, {
    fingerprint: ctx.fingerprint,
    keySetId: client.keySet.id,
    configId: config.configId,
    blockCount: config.blocks.length,
  })
  withScope((scope) => {
    for (const { envelope } of decoded.blocks) {
      const ciphertext = scope.track(new ctx.seal.Ciphertext())
      loadSealObject(ciphertext, ctx, envelope, { kind: 'ciphertext' })
      expect(ctx.levelOf(ciphertext)).toBe(0)
    }
  })
  const k = Math.min(10, config.rows)
  const hits = client.topK(result, k)
  expect(hits.map((hit) => hit.row)).toEqual(topKIndices(oracle, k))
  const best = hits[0]
  expect(best?.id).toBe(database.ids[best?.row ?? -1])
  expect(best?.metadata).toEqual(database.metadata?.[best?.row ?? -1])
  // Scores are the scaled cosines: the best one is close to the float cosine.
  const s2 = config.scale * config.scale
  expect(best?.similarity).toBeCloseTo((oracle[best?.row ?? 0] as number) / s2, 12)
}

describe('private search decrypts the exact scores (n=4096 [27,28,28], NTT form)', () => {
  const shapes: [Shape, number[] | 'all'][] = [
    [SMALL, 'all'],
    [MEDIUM, 'all'],
    [EXACT, [4, 16]],
    [LARGE, 'all'],
  ]
  for (const c of cases(['n4096'], shapes, [true])) {
    it(name(c), () => checkCase(c))
  }
})

describe('private search with the database in coefficient form', () => {
  const list = [
    ...cases(
      ['n4096'],
      [
        [SMALL, [1, 4]],
        [MEDIUM, [1, 16]],
      ],
      [false],
    ),
    ...cases(['n4096'], [[LARGE, [4]]], [false], ['server']),
  ]
  for (const c of list) it(name(c), () => checkCase(c))
})

describe('private search under the other parameter profiles', () => {
  // One side per g keeps n=8192 affordable: server-side rotations below D', client-side at g = D'.
  const list = cases(
    ['n4096-seal-default', 'n8192'],
    [
      [SMALL, 'all'],
      [MEDIUM, 'all'],
      [LARGE, [4, 16]],
    ],
    [true],
  ).filter((c) => (c.side === 'client') === (c.g === babySteps(c.shape[1]).at(-1)))
  for (const c of list) it(name(c), () => checkCase(c))
})

describe('private search beyond one block', () => {
  it('V=100,000 spans 25 blocks and still decrypts every score exactly', () =>
    checkCase({ params: 'n4096', scheme: 'bgv', side: 'client', shape: [100_000, 4], g: 4, nttForm: true }))
})

describe('private search compression knobs', () => {
  // Every combination of query and response encoding decrypts the oracle's scores;
  // uncompressed responses are larger on the wire, compressed queries smaller, packed smallest.
  for (const scheme of ['bgv', 'bfv'] as const) {
    it(`${scheme}: queries and responses zstd or uncompressed, each side's choice, scores exact`, async () => {
      const sizes: Record<string, { query: number; response: number }> = {}
      for (const compression of ['zstd', 'none', 'packed'] as const) {
        for (const responseCompression of ['zstd', 'none', 'packed'] as const) {
          using fixture = await searchFixture({ rows: 5000, dimension: 10, scheme, compression, responseCompression })
          expect(fixture.config.responseCompression).toBe(responseCompression)
          const vector = syntheticSearchQuery(10, 11)
          const query = fixture.client.encryptQuery(vector)
          const { response } = fixture.index.evaluate(query, fixture.keys)
          const oracle = plaintextSearchScores(fixture.config, fixture.database, vector)
          expect(Array.from(fixture.client.decryptScores(response).scores)).toEqual(Array.from(oracle))
          sizes[`${compression}/${responseCompression}`] = { query: query.byteLength, response: response.byteLength }
        }
      }
      expect(sizes['none/none']?.query).toBeGreaterThan(1.5 * (sizes['zstd/zstd']?.query ?? 0))
      expect(sizes['zstd/none']?.response).toBeGreaterThan(1.5 * (sizes['zstd/zstd']?.response ?? 0))
      // Packed: ⌈log2 q⌉ bits per residue beats zstd on uniform residues, both ways.
      expect(sizes['packed/packed']?.query).toBeLessThan(0.9 * (sizes['zstd/zstd']?.query ?? 0))
      expect(sizes['packed/packed']?.response).toBeLessThan(0.9 * (sizes['zstd/zstd']?.response ?? 0))
    })
  }
})

import { EvaluationKeys, getHeContext } from '@sealbox/he-core'
import {
  batchingPrime,
  PrivateSearchClient,
  PrivateSearchIndex,
  plaintextSearchScores,
  resolveSearchConfig,
  SEARCH_PLAIN_MODULUS,
  type SearchConfigInput,
  searchResponseDroppedBits,
  syntheticSearchDatabase,
} from '@sealbox/he-core/search'
import { BenchError } from '../BenchError.ts'

/*
 * What a larger plain modulus t costs in noise, measured with real SEAL (issue 27): for each t
 * and coefficient modulus, the search's two layouts at D = 384 — exact (one full block of
 * n rows: every diagonal summed) and cluster-private as the million bench runs it (C = 16:
 * three query chunks, one full block of m = 4,096 rows, g = 128, baby steps chained or hoisted)
 * — each query's SEAL noise budget per response block, unrounded and with the dropped bits
 * of the rule (`searchResponseDroppedBits`), the rule's bound and room, and every decrypted
 * score against the plain integer oracle. The client refuses a block with no budget left
 * (NOISE_BUDGET_EXHAUSTED): a t whose smallest budget here is 0 or 1 is not one to ship.
 */

/** One measured (t, primes, layout). */
export interface ResponseNoiseRow {
  layout: 'exact' | 'cluster-private'
  plainModulus: number
  coeffModulusBits: number[]
  babyStep: number
  hoisted: boolean
  scale: number
  /** The rule's bits dropped off c0 and c1, its noise bound and room q/(4t) (units of t). */
  droppedBits: [number, number]
  noiseBound: number
  room: number
  /** SEAL's noise budget, smallest and largest over every block of every query, every bit kept. */
  budgetFull: { min: number; max: number }
  /** The same with the rule's bits dropped (what a client that accepts them decrypts). */
  budgetDropped: { min: number; max: number }
  blocks: number
  queries: number
  /** Every decrypted score equal to the oracle, both ways. */
  exact: boolean
}

export interface ResponseNoiseCase {
  layout: 'exact' | 'cluster-private'
  plainModulus: number
  coeffModulusBits: number[]
  hoisted: boolean
}

/** The cases of the default run: today's t, and 18–21-bit batching primes, at [30, 30, 31] and [31, 31, 31]. */
export function defaultResponseNoiseCases(bits: readonly number[]): ResponseNoiseCase[] {
  const moduli = [SEARCH_PLAIN_MODULUS, ...bits.map((b) => batchingPrime(4096, b))]
  const out: ResponseNoiseCase[] = []
  for (const coeffModulusBits of [
    [30, 30, 31],
    [31, 31, 31],
  ]) {
    for (const plainModulus of moduli) {
      out.push({ layout: 'exact', plainModulus, coeffModulusBits, hoisted: false })
      for (const hoisted of [false, true])
        out.push({ layout: 'cluster-private', plainModulus, coeffModulusBits, hoisted })
    }
  }
  return out
}

const DIMENSION = 384

/** Measures one case with `queries` fresh queries (one key set). */
export async function measureResponseNoise(c: ResponseNoiseCase, queries: number): Promise<ResponseNoiseRow> {
  const clustered = c.layout === 'cluster-private'
  const rows = clustered ? 16 * 4096 : 4096
  const input: SearchConfigInput = {
    rows,
    dimension: DIMENSION,
    params: {
      scheme: 'bgv',
      polyModulusDegree: 4096,
      coeffModulus: c.coeffModulusBits,
      plainModulus: { value: c.plainModulus },
      security: 'tc128',
    },
    babySteps: 'server',
    ...(clustered ? { clusters: 16, babyStep: 128, hoistBabySteps: c.hoisted } : {}),
  }
  const config = resolveSearchConfig(input, { maxProcessedBytes: Number.POSITIVE_INFINITY })
  const ctx = await getHeContext(config.params)
  const rule = searchResponseDroppedBits(ctx, config)
  const topics = Math.round(rows / 100)
  const database = syntheticSearchDatabase({ rows, dimension: DIMENSION, seed: 11, topics, subjects: 10 })
  const asked = syntheticSearchDatabase({
    rows: queries,
    dimension: DIMENSION,
    seed: 12,
    topicSeed: 11,
    topics,
    subjects: 10,
  })
  using index = PrivateSearchIndex.process(ctx, database, config)
  const clustering = index.clustering
  using client = PrivateSearchClient.create(ctx, config, clustering ? { clustering } : {})
  const keyBytes = client.evaluationKeys()
  if (!keyBytes) throw new BenchError('ENGINE_FAILED', 'server-side baby steps need Galois keys')
  using keys = EvaluationKeys.load(ctx, keyBytes)
  const full = { min: Number.POSITIVE_INFINITY, max: 0 }
  const dropped = { min: Number.POSITIVE_INFINITY, max: 0 }
  let exact = true
  let blocks = 0
  for (let i = 0; i < queries; i++) {
    const query = asked.vectors.subarray(i * DIMENSION, (i + 1) * DIMENSION)
    const encrypted = client.encryptQuery(query)
    const oracle = plaintextSearchScores(config, database, query)
    for (const [droppedBits, range] of [
      [false, full],
      [true, dropped],
    ] as const) {
      const { response } = index.evaluate(encrypted, keys, { droppedBits })
      // A block with no budget left throws NOISE_BUDGET_EXHAUSTED: recorded as budget 0, not exact.
      let result: ReturnType<PrivateSearchClient['decryptScores']>
      try {
        result = client.decryptScores(response)
      } catch {
        range.min = 0
        exact = false
        continue
      }
      blocks = result.noiseBudgets.length
      range.min = Math.min(range.min, result.minNoiseBudget)
      range.max = Math.max(range.max, ...result.noiseBudgets)
      for (let row = 0; row < rows; row++) {
        const score = result.scores[row] as number
        if (Number.isFinite(score) && score !== oracle[row]) exact = false
      }
    }
  }
  return {
    layout: c.layout,
    plainModulus: c.plainModulus,
    coeffModulusBits: c.coeffModulusBits,
    babyStep: config.babyStep,
    hoisted: config.hoistBabySteps,
    scale: config.scale,
    droppedBits: rule.bits,
    noiseBound: rule.noiseBound,
    room: rule.room,
    budgetFull: full,
    budgetDropped: dropped,
    blocks,
    queries,
    exact,
  }
}

/** The rows as a Markdown table. */
export function renderResponseNoise(rows: readonly ResponseNoiseRow[], command: string): string {
  const lines = [
    '# Noise budget of search responses by plain modulus t (D = 384, n = 4096, BGV)',
    '',
    `\`${command}\``,
    '',
    "Exact: one full block of 4,096 rows (D' = 512). Cluster-private: C = 16 over 65,536 rows, three query chunks of W = 2,048, one full block of m = 4,096 rows, g = 128 (the million bench's config), baby steps chained by 1 or hoisted. SEAL's noise budget (bits) of every response block of every query, every bit kept and with the rule's dropped bits; the rule's bound on ‖e‖ and its room q/(4t) (units of t). Exact: every decrypted score equals the plain integer oracle.",
    '',
    '| layout | primes | t | log2 t | s | g | hoisted | rule: bits dropped | bound / room | budget, every bit (min–max) | budget, bits dropped (min–max) | exact |',
    '|---|---|---:|---:|---:|---:|---|---|---:|---|---|---|',
  ]
  for (const r of rows) {
    lines.push(
      `| ${r.layout} | [${r.coeffModulusBits.join(', ')}] | ${r.plainModulus} | ${Math.log2(r.plainModulus).toFixed(2)} | ${r.scale} | ${r.babyStep} | ${r.hoisted ? 'yes' : 'no'} | ${r.droppedBits.join(', ')} | ${r.noiseBound.toFixed(0)} / ${r.room.toFixed(0)} | ${r.budgetFull.min}–${r.budgetFull.max} | ${r.budgetDropped.min}–${r.budgetDropped.max} | ${r.exact ? 'yes' : '**no**'} |`,
    )
  }
  return `${lines.join('\n')}\n`
}

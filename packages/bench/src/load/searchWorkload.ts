import { EvaluationKeys, getHeContext } from '@sealbox/he-core'
import {
  PrivateSearchClient,
  PrivateSearchIndex,
  plaintextSearchScores,
  resolveSearchConfig,
  syntheticSearchDatabase,
  syntheticSearchQuery,
} from '@sealbox/he-core/search'
import { configFor } from '@sealbox/server'
import type { PreparedWorkload } from './PreparedWorkload.ts'

/** Distinct encrypted queries the load cycles through. */
const QUERIES = 4

/**
 * The private search workload exactly as a server started with its defaults serves
 * it (synthetic V=10000, D=16, seed 1; the default search profile, scheme, metric and
 * baby steps): queries encrypted once here and checked against the
 * plaintext scores. The Direct row runs he-core's PrivateSearchIndex in this process.
 */
export async function prepareSearchWorkload(): Promise<PreparedWorkload> {
  const server = configFor()
  const database = syntheticSearchDatabase({
    rows: server.SYNTHETIC_ROWS,
    dimension: server.SYNTHETIC_DIM,
    seed: server.SYNTHETIC_SEED,
  })
  const config = resolveSearchConfig({
    ...(server.SEARCH_PROFILE === undefined ? {} : { params: server.SEARCH_PROFILE }),
    scheme: server.SEARCH_SCHEME,
    metric: server.SEARCH_METRIC,
    babySteps: server.SEARCH_BABY_STEPS,
    ...(server.SEARCH_BABY_STEP === undefined ? {} : { babyStep: server.SEARCH_BABY_STEP }),
    dimension: database.dimension,
    rows: database.rows,
  })
  const ctx = await getHeContext(config.params)
  const client = PrivateSearchClient.create(ctx, config)
  const keyEnvelope = client.evaluationKeys()
  const vectors = Array.from({ length: QUERIES }, (_, i) => syntheticSearchQuery(config.dimension, 1000 + i))
  const queries = vectors.map((vector) => client.encryptQuery(vector))
  const oracles = vectors.map((vector) => plaintextSearchScores(config, database, vector))
  // The Direct row's server half, built on first use (processing the database takes a moment).
  let direct: { index: PrivateSearchIndex; keys: EvaluationKeys | null } | undefined
  const serverHalf = () => {
    direct ??= {
      index: PrivateSearchIndex.process(ctx, database, config),
      keys: keyEnvelope ? EvaluationKeys.load(ctx, keyEnvelope) : null,
    }
    return direct
  }

  return {
    workload: 'search',
    title: `Private search (V=${config.rows}, D=${config.dimension}, default config)`,
    facts: {
      configId: config.configId,
      params: `${config.scheme.toUpperCase()} n=${config.polyModulusDegree}`,
      babySteps: `${config.babySteps}-side, g=${config.babyStep}`,
      galoisKeys: config.galoisSteps.length === 0 ? 'none needed' : `steps ${config.galoisSteps.join(', ')}`,
      queryCiphertexts: config.queryCiphertexts,
      queryBytes: queries[0]?.byteLength ?? 0,
      distinctQueries: QUERIES,
    },
    calls: { route: 'search', queries, ...(keyEnvelope ? { keySet: 'search' } : {}) },
    keySet: keyEnvelope ? { id: 'search', bytes: keyEnvelope } : undefined,
    configId: config.configId,
    verify(index, answer) {
      const oracle = oracles[index]
      if (!oracle) return false
      const { scores, strayNonZeroSlots } = client.decryptScores(answer)
      return strayNonZeroSlots === 0 && oracle.every((score, row) => scores[row] === score)
    },
    runDirect(index) {
      const { index: searchIndex, keys } = serverHalf()
      const started = performance.now()
      const { timings } = searchIndex.evaluate(queries[index % QUERIES] as Uint8Array, keys)
      return { computeMs: timings.computeMs, totalMs: performance.now() - started }
    },
    [Symbol.dispose]() {
      direct?.index.dispose()
      direct?.keys?.dispose()
      client.dispose()
    },
  }
}

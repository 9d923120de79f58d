import { getHeContext } from '@sealbox/he-core'
import { SealboxClient } from '@sealbox/he-core/client'
import {
  PrivateSearchClient,
  resolveSearchConfig,
  type SearchConfig,
  type SearchLinkRates,
  syntheticSearchDatabase,
  syntheticSearchQuery,
} from '@sealbox/he-core/search'
import type { ServerNode } from '@sealbox/testkit'
import { BenchError } from '../BenchError.ts'
import { parsePrometheus, processCpuSeconds } from '../load/scrapeMetrics.ts'
import type { EndToEndRow } from './EndToEndReport.ts'
import type { EndToEndCase } from './endToEndCases.ts'
import { summariseEndToEnd } from './summariseEndToEnd.ts'
import { timeSearchQueries } from './timeSearchQueries.ts'

/** The server process's CPU seconds so far (all threads), from its /metrics; null when it reports none. */
export async function serverCpuSeconds(url: string): Promise<number | null> {
  return processCpuSeconds(parsePrometheus(await (await fetch(`${url}/metrics`)).text())) ?? null
}

/** One config's timed queries over one link: the server, the URL the client reaches it by, the link. */
export interface LinkRun {
  node: ServerNode
  /** The server's URL, or the shaped proxy's in front of it. */
  baseUrl: string
  link: SearchLinkRates
  shapedBy: EndToEndRow['shapedBy']
  c: EndToEndCase
  samples: number
}

/**
 * One config over one link with the client in this process (node-seal): an untimed query,
 * then `samples` timed ones, each checked against the plaintext oracle outside the timing.
 */
export async function measureOverLink(run: LinkRun): Promise<EndToEndRow> {
  const { node, baseUrl, link, shapedBy, c, samples } = run
  const anonymous = new SealboxClient({ baseUrl })
  const { client } = await anonymous.createSession()
  const { database: _facts, fingerprint: _fingerprint, ...served } = await client.searchConfig()
  if (Object.keys(c.env).length === 0) {
    // A default row is he-core's default for this shape (its parameters follow D), or it is not that row.
    const expected = resolveSearchConfig({ rows: c.rows, dimension: c.dimension })
    if (served.configId !== expected.configId) {
      throw new BenchError(
        'ENGINE_FAILED',
        `${c.title}: the server serves config ${served.configId} (n=${served.polyModulusDegree} [${served.params.coeffModulusBits.join(', ')}], ${served.babySteps} g=${served.babyStep}), not resolveSearchConfig's default ${expected.configId} ([${expected.params.coeffModulusBits.join(', ')}], ${expected.babySteps} g=${expected.babyStep})`,
      )
    }
  }
  const config: SearchConfig = c.queryEncoding ? { ...served, compression: c.queryEncoding } : served
  const ctx = await getHeContext(config.params)
  using search = PrivateSearchClient.create(ctx, config)
  const keys = search.evaluationKeys(c.keyEncoding ? { compression: c.keyEncoding } : {})
  if (keys) await client.putKeySet('e2e', keys)
  const options = keys ? { keySet: 'e2e' } : {}
  const database = syntheticSearchDatabase({ rows: c.rows, dimension: c.dimension, seed: 1 })
  // One untimed query warms the server's key cache and the connection.
  await client.search(search.encryptQuery(syntheticSearchQuery(c.dimension, 999)), options)
  const cpuBefore = await serverCpuSeconds(`http://127.0.0.1:${node.port}`)
  const timed = await timeSearchQueries({ client, search, config, database, keySet: keys ? 'e2e' : undefined, samples })
  const cpuAfter = await serverCpuSeconds(`http://127.0.0.1:${node.port}`)
  return summariseEndToEnd({
    title: c.title,
    link,
    shapedBy,
    config,
    rows: timed.samples,
    cpuMs: cpuBefore !== null && cpuAfter !== null ? ((cpuAfter - cpuBefore) * 1000) / samples : null,
    keyBytes: keys?.byteLength ?? 0,
    topHitFound: timed.topHitFound,
    exact: timed.exact,
    noiseExhausted: timed.noiseExhausted,
    modelled: !c.queryEncoding,
  })
}

import { SealboxClient } from '@sealbox/he-core/client'
import {
  type PrivateSearchClient,
  resolveSearchLink,
  type SearchLinkName,
  type SearchLinkRates,
} from '@sealbox/he-core/search'
import type { ServerNode } from '@sealbox/testkit'
import { BenchError } from '../BenchError.ts'
import { loadAverage } from '../core/machineInfo.ts'
import type { BrowserClientSample } from './browserClient/browserClientProtocol.ts'
import { type LinkMedians, linkMedians } from './linkMedians.ts'
import { timeClientQuery } from './timeSearchQueries.ts'
import { ToxiproxyLinks } from './toxiproxyLink.ts'

/** One link's end to end at a million rows: medians over the samples (ms), as the end-to-end section counts them. */
export interface MillionLinkRow extends LinkMedians {
  link: SearchLinkRates
  /** `toxiproxy`: through a shaped link; `model`: loopback plus bytes ÷ rate and one round trip (no Toxiproxy). */
  shapedBy: 'toxiproxy' | 'model'
  samples: number
  load: [number, number, number]
}

/**
 * The client a user would run, through each shaped link in front of a running node: a new
 * session over the link, its keys uploaded (untimed), one untimed query to warm the key
 * cache and the connection, then per sample encrypt → request → decrypt and rank the top
 * 10. `query(vector)` encrypts as the case does (a cluster-private client picks its
 * cluster from the public centroids). Toxiproxy shapes the link when it can be built;
 * otherwise the row says `model`.
 */
export async function measureMillionLinks(options: {
  node: ServerNode
  search: PrivateSearchClient
  keys: Uint8Array | null | undefined
  vectors: readonly ArrayLike<number>[]
  links: readonly SearchLinkName[]
  cacheDir: string
  log: (line: string) => void
}): Promise<MillionLinkRow[]> {
  const { node, search, keys, vectors, log } = options
  const proxies = await ToxiproxyLinks.startOrModel(options.cacheDir, log)
  const out: MillionLinkRow[] = []
  try {
    for (const name of options.links) {
      const link = resolveSearchLink(name)
      const url = proxies ? await proxies.shape(`million-${name}-${node.port}`, node.port, link) : node.url
      const { client } = await new SealboxClient({ baseUrl: url }).createSession()
      if (keys) await client.putKeySet('search', keys)
      const request = keys ? { keySet: 'search' } : {}
      await client.search(search.encryptQuery(vectors[0] as ArrayLike<number>), request)
      const samples: BrowserClientSample[] = []
      for (const vector of vectors) {
        const { sample, hits } = await timeClientQuery(client, search, vector, request)
        if (!hits) throw new BenchError('ENGINE_FAILED', `million: ${name}: a response block ran out of noise budget`)
        samples.push(sample)
        log(
          `million: ${name} sample ${samples.length}/${vectors.length}: ${(sample.encrypt + sample.request + sample.decrypt).toFixed(0)} ms end to end`,
        )
      }
      out.push({
        link,
        shapedBy: proxies ? 'toxiproxy' : 'model',
        samples: samples.length,
        ...linkMedians(samples, link, !proxies),
        load: loadAverage(),
      })
    }
  } finally {
    await proxies?.[Symbol.asyncDispose]()
  }
  return out
}

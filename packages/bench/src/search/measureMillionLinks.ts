import { SealboxClient, TIMING_PHASES } from '@sealbox/he-core/client'
import {
  type PrivateSearchClient,
  resolveSearchLink,
  type SearchLinkName,
  type SearchLinkRates,
  transferMs,
} from '@sealbox/he-core/search'
import type { ServerNode } from '@sealbox/testkit'
import { loadAverage } from '../core/machineInfo.ts'
import { median } from '../core/stats.ts'
import { ensureToxiproxy, ToxiproxyLinks } from './toxiproxyLink.ts'

/** One link's end to end at a million rows: medians over the samples (ms), as the end-to-end section counts them. */
export interface MillionLinkRow {
  link: SearchLinkRates
  /** `toxiproxy`: through a shaped link; `model`: loopback plus bytes ÷ rate and one round trip (no Toxiproxy). */
  shapedBy: 'toxiproxy' | 'model'
  samples: number
  encryptMs: number
  /** Bytes ÷ the link's rate (what the shaper enforces). */
  uploadMs: number
  serverMs: number
  downloadMs: number
  /** The request as the client saw it minus the server total: both transfers and the round trip, measured. */
  networkMs: number
  decryptRankMs: number
  /** encrypt + the request + decrypt and rank (over loopback plus the modelled link when not shaped). */
  endToEndMs: number
  endToEndMinMs: number
  load: [number, number, number]
}

const SERVER_PHASES = TIMING_PHASES.filter((phase) => phase !== 'store' && phase !== 'cpu')

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
  let proxies: ToxiproxyLinks | undefined
  try {
    proxies = await ToxiproxyLinks.start(await ensureToxiproxy(options.cacheDir, log))
  } catch (error) {
    log(`million: Toxiproxy unavailable (${error instanceof Error ? error.message : String(error)}): modelled links`)
  }
  const out: MillionLinkRow[] = []
  try {
    for (const name of options.links) {
      const link = resolveSearchLink(name)
      const url = proxies ? await proxies.shape(`million-${name}-${node.port}`, node.port, link) : node.url
      const { client } = await new SealboxClient({ baseUrl: url }).createSession()
      if (keys) await client.putKeySet('search', keys)
      const request = keys ? { keySet: 'search' } : {}
      await client.search(search.encryptQuery(vectors[0] as ArrayLike<number>), request)
      const samples: { encrypt: number; request: number; server: number; decrypt: number; up: number; down: number }[] =
        []
      for (const vector of vectors) {
        const t0 = performance.now()
        const query = search.encryptQuery(vector)
        const t1 = performance.now()
        const result = await client.search(query, request)
        const t2 = performance.now()
        search.rank(result.responses, 10)
        const t3 = performance.now()
        const timing = result.timing as Partial<Record<string, number>>
        samples.push({
          encrypt: t1 - t0,
          request: t2 - t1,
          server: SERVER_PHASES.reduce((sum, phase) => sum + (timing[phase] ?? 0), 0),
          decrypt: t3 - t2,
          up: query.byteLength,
          down: result.responses.reduce((sum, r) => sum + r.byteLength, 0),
        })
        log(`million: ${name} sample ${samples.length}/${vectors.length}: ${(t3 - t0).toFixed(0)} ms end to end`)
      }
      const modelled = (s: (typeof samples)[number]) =>
        proxies ? 0 : transferMs(s.up, link.upMbps) + transferMs(s.down, link.downMbps) + link.rttMs
      const e2e = samples.map((s) => s.encrypt + s.request + s.decrypt + modelled(s))
      out.push({
        link,
        shapedBy: proxies ? 'toxiproxy' : 'model',
        samples: samples.length,
        encryptMs: median(samples.map((s) => s.encrypt)),
        uploadMs: transferMs(samples[0]?.up ?? 0, link.upMbps),
        serverMs: median(samples.map((s) => s.server)),
        downloadMs: transferMs(samples[0]?.down ?? 0, link.downMbps),
        networkMs: median(samples.map((s) => s.request - s.server)),
        decryptRankMs: median(samples.map((s) => s.decrypt)),
        endToEndMs: median(e2e),
        endToEndMinMs: Math.min(...e2e),
        load: loadAverage(),
      })
    }
  } finally {
    await proxies?.[Symbol.asyncDispose]()
  }
  return out
}

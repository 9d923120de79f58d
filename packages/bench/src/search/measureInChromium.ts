import { SealboxClient } from '@sealbox/he-core/client'
import type { SearchLinkRates } from '@sealbox/he-core/search'
import type { ServerNode } from '@sealbox/testkit'
import type { BrowserSearchClient } from './browserSearchClient.ts'
import type { EndToEndRow } from './EndToEndReport.ts'
import type { EndToEndCase } from './endToEndCases.ts'
import { serverCpuSeconds } from './measureOverLink.ts'
import { summariseEndToEnd } from './summariseEndToEnd.ts'

/**
 * The same config and link with the client in Chromium (browserClient/): he-core in a page,
 * the server reached through the shaped link from another origin (CORS; the preflight is
 * cached after the untimed first query).
 */
export async function measureInChromium(
  browser: BrowserSearchClient,
  node: ServerNode,
  baseUrl: string,
  link: SearchLinkRates,
  shapedBy: EndToEndRow['shapedBy'],
  c: EndToEndCase,
  samples: number,
): Promise<EndToEndRow> {
  let cpuBefore: number | null = null
  const { setup, run } = await browser.run(baseUrl, samples, async () => {
    cpuBefore = await serverCpuSeconds(`http://127.0.0.1:${node.port}`)
  })
  const cpuAfter = await serverCpuSeconds(`http://127.0.0.1:${node.port}`)
  const anonymous = new SealboxClient({ baseUrl: node.url })
  const { client } = await anonymous.createSession()
  const { database: _facts, fingerprint: _fingerprint, ...config } = await client.searchConfig()
  const before = cpuBefore as number | null
  return summariseEndToEnd({
    title: c.title,
    link,
    shapedBy,
    config,
    rows: run.samples,
    cpuMs: before !== null && cpuAfter !== null ? ((cpuAfter - before) * 1000) / samples : null,
    keyBytes: setup.keyBytes,
    topHitFound: run.topHitFound,
    exact: run.exact,
    noiseExhausted: run.noiseExhausted,
    modelled: true,
    client: `Chromium ${browser.version}`,
  })
}

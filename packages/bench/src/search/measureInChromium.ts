import { SealboxClient } from '@sealbox/he-core/client'
import type { BrowserSearchClient } from './browserSearchClient.ts'
import type { EndToEndRow } from './EndToEndReport.ts'
import { type LinkRun, serverCpuSeconds } from './measureOverLink.ts'
import { summariseEndToEnd } from './summariseEndToEnd.ts'

/**
 * The same config and link with the client in Chromium (browserClient/): he-core in a page,
 * the server reached through the shaped link from another origin (CORS; the preflight is
 * cached after the untimed first query).
 */
export async function measureInChromium(browser: BrowserSearchClient, linkRun: LinkRun): Promise<EndToEndRow> {
  const { node, baseUrl, link, shapedBy, c, samples } = linkRun
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

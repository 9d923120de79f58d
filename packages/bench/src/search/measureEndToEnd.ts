import { resolveSearchLink, type SearchLinkName } from '@sealbox/he-core/search'
import { ServerNode } from '@sealbox/testkit'
import { loadAverage } from '../core/machineInfo.ts'
import type { NativeSearchHarness } from '../engines/native/NativeSearchHarness.ts'
import type { BrowserSearchClient } from './browserSearchClient.ts'
import type { EndToEndReport, EndToEndRow } from './EndToEndReport.ts'
import { type EndToEndCase, type EndToEndLimit, endToEndServerEnv } from './endToEndCases.ts'
import { type EndToEndTwinRow, measureEndToEndTwin } from './measureEndToEndTwins.ts'
import { measureInChromium } from './measureInChromium.ts'
import { measureOverLink } from './measureOverLink.ts'
import { ToxiproxyLinks } from './toxiproxyLink.ts'

/**
 * The end-to-end section: for each case a real server process (pool executor), and for
 * each link a Toxiproxy proxy in front of it shaped to that link; a Node client encrypts,
 * sends, waits, decrypts and ranks, as a user would. Without Toxiproxy (no Go), the same
 * client runs over loopback and the link is added by the model, and the rows say so.
 */
export async function measureEndToEnd(options: {
  cases: readonly EndToEndCase[]
  /** Shapes left out as limits (named in the report). */
  limits?: readonly EndToEndLimit[]
  links: readonly SearchLinkName[]
  samples: number
  cacheDir: string
  command: string
  log: (line: string) => void
  /** Measure each default config's server side in this process beside its native twin (undefined harness: WASM only). */
  twins?: { harness: NativeSearchHarness | undefined; samples: number }
  /** The Chromium client, run after the Node client on the cases it accepts. */
  browser?: { client: BrowserSearchClient; cases: (c: EndToEndCase) => boolean }
}): Promise<EndToEndReport> {
  const { log } = options
  const loadAverageBefore = loadAverage()
  const links = await ToxiproxyLinks.startOrModel(options.cacheDir, log)
  const shaper = links
    ? 'Toxiproxy 2.12.0 (latency toxic: half the round trip each way; bandwidth toxic per direction)'
    : 'model: loopback + bytes ÷ rate + one round trip (Toxiproxy could not be built or started)'
  const rows: EndToEndRow[] = []
  const twins: EndToEndTwinRow[] = []
  const skipped: { title: string; reason: string }[] = []
  try {
    for (const [i, c] of options.cases.entries()) {
      log(`end to end: ${c.title}`)
      let node: ServerNode
      try {
        node = await ServerNode.start({
          name: `e2e-${i}`,
          env: endToEndServerEnv(c, options.browser?.client.origin),
          readyTimeoutMs: 300_000,
        })
      } catch (error) {
        // One shape the machine cannot serve (a server not ready in time) is noted, not the end of the run.
        const reason = error instanceof Error ? error.message : String(error)
        log(`${c.title} not measured: ${reason}`)
        skipped.push({ title: c.title, reason })
        continue
      }
      try {
        for (const name of options.links) {
          const link = resolveSearchLink(name)
          const url = links ? await links.shape(`e2e-${i}-${name}`, node.port, link) : node.url
          const shapedBy = links ? 'toxiproxy' : 'model'
          const samples = Math.min(options.samples, c.samples ?? options.samples)
          const run = { node, baseUrl: url, link, shapedBy, c, samples } as const
          rows.push(await measureOverLink(run))
          if (options.browser?.cases(c)) {
            log(`end to end in Chromium: ${c.title}, ${name}`)
            rows.push(await measureInChromium(options.browser.client, run))
          }
        }
      } finally {
        await node.stop()
      }
      // With the server stopped: the same default config in this process, beside native SEAL.
      if (options.twins && Object.keys(c.env).length === 0 && !c.queryEncoding) {
        log(`server side, WASM and native: ${c.title}`)
        try {
          const samples = Math.min(options.twins.samples, c.samples ?? options.twins.samples)
          twins.push(await measureEndToEndTwin(c, options.twins.harness, samples, log))
        } catch (error) {
          // E.g. a first answer with no noise budget left: the shaped rows above already say so.
          log(`server side of ${c.title} not measured: ${error instanceof Error ? error.message : String(error)}`)
        }
      }
    }
  } finally {
    await links?.[Symbol.asyncDispose]()
  }
  return {
    command: options.command,
    date: new Date().toISOString(),
    shaper,
    loadAverageBefore,
    loadAverageAfter: loadAverage(),
    rows,
    twins,
    skipped,
    limits: [...(options.limits ?? [])],
  }
}

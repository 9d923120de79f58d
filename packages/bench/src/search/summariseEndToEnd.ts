import type { SearchConfig, SearchLinkRates } from '@sealbox/he-core/search'
import type { BrowserClientSample } from './browserClient/browserClientProtocol.ts'
import type { EndToEndRow } from './EndToEndReport.ts'
import { linkMedians } from './linkMedians.ts'

/** Medians of one config's timed queries over one link (the Node client's or the browser's). */
export function summariseEndToEnd(run: {
  title: string
  link: SearchLinkRates
  shapedBy: EndToEndRow['shapedBy']
  config: SearchConfig
  rows: readonly BrowserClientSample[]
  cpuMs: number | null
  keyBytes: number
  topHitFound: boolean
  exact: boolean
  noiseExhausted: number
  /** The config is the served one, so the cost model's estimate applies. */
  modelled: boolean
  client?: string
}): EndToEndRow {
  const { link, rows, config } = run
  const queryBytes = rows[0]?.up ?? 0
  const responseBytes = rows[0]?.down ?? 0
  const estimate = config.estimate
  return {
    title: run.title,
    link,
    shapedBy: run.shapedBy,
    client: run.client ?? 'Node',
    config: {
      babySteps: config.babySteps,
      babyStep: config.babyStep,
      queryCiphertexts: config.queryCiphertexts,
      galoisSteps: config.galoisSteps,
      wire: `${config.compression} / ${config.responseCompression}`,
      polyModulusDegree: config.polyModulusDegree,
      coeffModulusBits: config.params.coeffModulusBits,
    },
    samples: rows.length,
    ...linkMedians(rows, link, run.shapedBy === 'model'),
    serverCpuMs: run.cpuMs,
    queryBytes,
    responseBytes,
    keyBytes: run.keyBytes,
    topHitFound: run.topHitFound,
    exact: run.exact,
    noiseExhausted: run.noiseExhausted,
    modelMs: estimate && estimate.link.name === link.name && run.modelled ? estimate.totalMs : undefined,
  }
}

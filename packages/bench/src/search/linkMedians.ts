import { type SearchLinkRates, transferMs } from '@sealbox/he-core/search'
import { median } from '../core/stats.ts'
import type { BrowserClientSample } from './browserClient/browserClientProtocol.ts'

/** Medians of one client's timed queries over one link (ms): the columns every end-to-end table shares. */
export interface LinkMedians {
  encryptMs: number
  /** Bytes ÷ the link's rate (what the shaper enforces). */
  uploadMs: number
  serverMs: number
  downloadMs: number
  /** The whole request as the client saw it, minus the server's total: upload, download and the round trip, measured. */
  networkMs: number
  decryptRankMs: number
  /** encrypt + the request + decrypt and rank (plus the modelled link when `modelled`). */
  endToEndMs: number
  endToEndMinMs: number
}

/**
 * The medians of `samples` over `link`. `modelled`: the samples ran over loopback, so each
 * end to end adds the link as the model has it (bytes ÷ rate each way and one round trip).
 */
export function linkMedians(
  samples: readonly BrowserClientSample[],
  link: SearchLinkRates,
  modelled: boolean,
): LinkMedians {
  const e2e = samples.map(
    (s) =>
      s.encrypt +
      s.request +
      s.decrypt +
      (modelled ? transferMs(s.up, link.upMbps) + transferMs(s.down, link.downMbps) + link.rttMs : 0),
  )
  return {
    encryptMs: median(samples.map((s) => s.encrypt)),
    uploadMs: transferMs(samples[0]?.up ?? 0, link.upMbps),
    serverMs: median(samples.map((s) => s.server)),
    downloadMs: transferMs(samples[0]?.down ?? 0, link.downMbps),
    networkMs: median(samples.map((s) => s.request - s.server)),
    decryptRankMs: median(samples.map((s) => s.decrypt)),
    endToEndMs: median(e2e),
    endToEndMinMs: Math.min(...e2e),
  }
}

import type { SearchLinkRates } from '@sealbox/he-core/search'
import type { EndToEndLimit } from './endToEndCases.ts'
import type { LinkMedians } from './linkMedians.ts'
import type { EndToEndTwinRow } from './measureEndToEndTwins.ts'

/** Medians of one config over one link (ms), its bytes and whether every query found the true top hit. */
export interface EndToEndRow extends LinkMedians {
  title: string
  link: SearchLinkRates
  /** `toxiproxy`: measured through a shaped link; `model`: loopback plus bytes ÷ rate and one round trip. */
  shapedBy: 'toxiproxy' | 'model'
  /** Who encrypts and decrypts: `Node` (node-seal in the benchmark's process) or `Chromium <version>` (the page). */
  client: string
  config: {
    babySteps: string
    babyStep: number
    queryCiphertexts: number
    galoisSteps: number[]
    wire: string
    /** n and the coefficient modulus's prime sizes the server served (its profile for this D). */
    polyModulusDegree: number
    coeffModulusBits: number[]
  }
  samples: number
  /** The server process's CPU (all threads) per query, from its /metrics. */
  serverCpuMs: number | null
  queryBytes: number
  responseBytes: number
  keyBytes: number
  topHitFound: boolean
  /** Every row's decrypted score equal to the plaintext oracle's, in every sample (checked outside the timing). */
  exact: boolean
  /** Samples whose response had a block with no noise budget left (the client refuses to rank it). */
  noiseExhausted: number
  /** The cost model's end-to-end estimate for this config and link. */
  modelMs: number | undefined
}

/** What the end-to-end section measured: its rows, the native twins, and what it left out. */
export interface EndToEndReport {
  command: string
  date: string
  shaper: string
  loadAverageBefore: [number, number, number]
  loadAverageAfter: [number, number, number]
  rows: EndToEndRow[]
  /** The server side of each default config in WebAssembly and native SEAL, same run. */
  twins: EndToEndTwinRow[]
  /** Cases not measured, and why. */
  skipped: { title: string; reason: string }[]
  /** Shapes left out as limits of the server's defaults, and why. */
  limits: EndToEndLimit[]
}

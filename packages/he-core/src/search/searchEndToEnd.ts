import { z } from 'zod'
import type { ParamsFacts } from '../params/describeParams.ts'
import type { SearchOperationCount, SearchWireEncoding } from './searchCost.ts'

/**
 * What a user waits for per query is not the server's slice: it is encrypting, the
 * upload over their link, the server, the download and decrypting. This module prices
 * the bytes over a declared link so a config can be chosen on that whole time.
 */

/** The two links the benchmark shapes and the defaults are chosen for. */
export const SEARCH_LINKS = {
  /** 20 Mbit/s up, 100 Mbit/s down, 20 ms round trip. */
  broadband: { upMbps: 20, downMbps: 100, rttMs: 20 },
  /** 5 Mbit/s up, 20 Mbit/s down, 60 ms round trip. */
  mobile: { upMbps: 5, downMbps: 20, rttMs: 60 },
} as const

export type SearchLinkName = keyof typeof SEARCH_LINKS

/** A link by name, or its rates (Mbit/s, 10^6 bits per second) and round trip (ms). */
export const SearchLinkSchema = z.union([
  z.enum(['broadband', 'mobile']),
  z
    .object({
      upMbps: z.number().positive().finite(),
      downMbps: z.number().positive().finite(),
      rttMs: z.number().nonnegative().finite(),
    })
    .strict(),
])
export type SearchLinkInput = z.input<typeof SearchLinkSchema>

/** A resolved link: its name (`custom` for given rates) and rates. */
export const SearchLinkRatesSchema = z
  .object({
    name: z.string(),
    upMbps: z.number(),
    downMbps: z.number(),
    rttMs: z.number(),
  })
  .strict()
export type SearchLinkRates = z.infer<typeof SearchLinkRatesSchema>

export function resolveSearchLink(link: SearchLinkInput = 'broadband'): SearchLinkRates {
  return typeof link === 'string' ? { name: link, ...SEARCH_LINKS[link] } : { name: 'custom', ...link }
}

/** Milliseconds to move `bytes` at `mbps`. */
export function transferMs(bytes: number, mbps: number): number {
  return (bytes * 8) / (mbps * 1000)
}

// Envelope framing: 56 bytes of header and checksum, plus the meta JSON (a label, a level).
const ITEM_FRAME = 56 + 30
const BUNDLE_FRAME = 56 + 120
// A SEAL save of a ciphertext: its header, fields and data-array header; a seed's PRNG info.
const SEAL_CIPHERTEXT_HEAD = 16 + 73 + 24
const SEAL_PRNG_INFO = 81
/**
 * zstd on uniform residues below w-bit primes stored in 64-bit words: measured 0.544 of
 * SEAL's uncompressed bytes at [27, 28] (queries) and 0.536 at [27] (responses), which is
 * (w + 7.3) / 64: the zero high bits go, the residues' own entropy stays.
 */
const ZSTD_EXTRA_BITS = 7.3

/** Bytes of one size-2 ciphertext over primes of these widths, seeded (c0 and a seed) or not. */
export function ciphertextWireBytes(
  encoding: SearchWireEncoding,
  n: number,
  widths: readonly number[],
  seeded: boolean,
): number {
  const polys = seeded ? 1 : 2
  const k = widths.length
  const bits = widths.reduce((sum, w) => sum + w, 0)
  if (encoding === 'packed') return 24 + k + (seeded ? 65 : 0) + Math.ceil((polys * n * bits) / 8)
  const none = SEAL_CIPHERTEXT_HEAD + polys * n * k * 8 + (seeded ? SEAL_PRNG_INFO : 0)
  return encoding === 'none' ? none : Math.round(none * ((bits / k + ZSTD_EXTRA_BITS) / 64))
}

/** A Galois-key envelope's header, meta (steps and elements) and checksum. */
const KEY_ENVELOPE_FRAME = 56 + 40

/** Widths (bits) of the data primes, and of the one prime a response is switched to. */
function widthsOf(facts: Pick<ParamsFacts, 'coeffModulusBits' | 'dataPrimeCount'>): {
  query: number[]
  response: number[]
  key: number[]
} {
  const data = facts.coeffModulusBits.slice(0, facts.dataPrimeCount)
  return { query: data, response: data.slice(0, 1), key: facts.coeffModulusBits }
}

/** Bytes one query and its response take on the wire, and the Galois keys (once per user, seeded and packed). */
export interface SearchWireEstimate {
  queryBytes: number
  responseBytes: number
  keyBytes: number
}

export function estimateSearchWireBytes(
  counts: Pick<SearchOperationCount, 'queryCiphertexts' | 'responseCiphertexts'>,
  galoisSteps: number,
  facts: Pick<ParamsFacts, 'polyModulusDegree' | 'coeffModulusBits' | 'dataPrimeCount'>,
  transfer: { query: SearchWireEncoding; response: SearchWireEncoding },
): SearchWireEstimate {
  const n = facts.polyModulusDegree
  const widths = widthsOf(facts)
  const query = ciphertextWireBytes(transfer.query, n, widths.query, true) + ITEM_FRAME
  const response = ciphertextWireBytes(transfer.response, n, widths.response, false) + ITEM_FRAME
  // A Galois key per step: its element (4 bytes) and one seeded key-level ciphertext per data
  // prime, packed as uploaded (PrivateSearchClient.evaluationKeys): c0's residues and a seed.
  const keyBits = n * widths.key.reduce((sum, w) => sum + w, 0)
  const perStep = 4 + facts.dataPrimeCount * (65 + Math.ceil(keyBits / 8))
  return {
    queryBytes: BUNDLE_FRAME + counts.queryCiphertexts * query,
    responseBytes: BUNDLE_FRAME + counts.responseCiphertexts * response,
    keyBytes: galoisSteps === 0 ? 0 : KEY_ENVELOPE_FRAME + 16 + widths.key.length + galoisSteps * perStep,
  }
}

/**
 * Client milliseconds at n = 4096 with two data primes (node-seal 7, Node 24, this
 * project's VM): encode, seeded encryption and save of one query ciphertext; load,
 * decrypt and decode of one response block. They scale with n × primes.
 */
const CLIENT_ENCRYPT_MS = 1.6
const CLIENT_DECRYPT_MS = 0.6

/** Where one query's time goes, end to end (ms), and its bytes. */
export const SearchEndToEndEstimateSchema = z
  .object({
    link: SearchLinkRatesSchema,
    encryptMs: z.number(),
    uploadMs: z.number(),
    serverMs: z.number(),
    downloadMs: z.number(),
    decryptMs: z.number(),
    /** One round trip: the request goes out and the answer comes back. */
    rttMs: z.number(),
    totalMs: z.number(),
    queryBytes: z.number(),
    responseBytes: z.number(),
    keyBytes: z.number(),
  })
  .strict()
export type SearchEndToEndEstimate = z.infer<typeof SearchEndToEndEstimateSchema>

/** The model's end-to-end time of one query: client, both transfers, one round trip and the server. */
export function estimateEndToEnd(
  counts: Pick<SearchOperationCount, 'queryCiphertexts' | 'responseCiphertexts'>,
  galoisSteps: number,
  facts: Pick<ParamsFacts, 'polyModulusDegree' | 'coeffModulusBits' | 'dataPrimeCount'>,
  transfer: { query: SearchWireEncoding; response: SearchWireEncoding },
  serverMs: number,
  link: SearchLinkRates,
): SearchEndToEndEstimate {
  const bytes = estimateSearchWireBytes(counts, galoisSteps, facts, transfer)
  const size = (facts.polyModulusDegree / 4096) * (facts.dataPrimeCount / 2)
  const encryptMs = counts.queryCiphertexts * CLIENT_ENCRYPT_MS * size
  const decryptMs = counts.responseCiphertexts * CLIENT_DECRYPT_MS * (facts.polyModulusDegree / 4096)
  const uploadMs = transferMs(bytes.queryBytes, link.upMbps)
  const downloadMs = transferMs(bytes.responseBytes, link.downMbps)
  return {
    link,
    encryptMs,
    uploadMs,
    serverMs,
    downloadMs,
    decryptMs,
    rttMs: link.rttMs,
    totalMs: encryptMs + uploadMs + link.rttMs + serverMs + downloadMs + decryptMs,
    ...bytes,
  }
}

import { z } from 'zod'
import { ParamsSpec } from '../params/ParamsSpec.ts'
import { SEARCH_WIRE_ENCODINGS } from './searchCost.ts'
import { SearchLinkSchema } from './searchEndToEnd.ts'
import { SEARCH_PARAMS_PROFILES, SEARCH_SCHEMES } from './searchParams.ts'

/** Largest V accepted: 2^24 rows (4,096 blocks at n=4096). Processed size is checked separately. */
export const SEARCH_MAX_ROWS = 1 << 24
/** Largest D accepted; D' must also divide n/2. */
export const SEARCH_MAX_DIMENSION = 4096

const profileNames = Object.keys(SEARCH_PARAMS_PROFILES) as [keyof typeof SEARCH_PARAMS_PROFILES]

/**
 * What a user states about a private search. Only `dimension` and `rows` are
 * required; everything else has a default tuned on this project's machines.
 */
export const SearchConfigInput = z
  .object({
    /**
     * A profile name or a full BFV/BGV parameter spec. Default: `n4096`, or `n4096-wide`
     * from D' = 512 on (`defaultSearchProfile`), where `n4096` leaves too little noise budget,
     * and wherever the plan at `n4096` would leave a response none (`NOISE_FALLBACK_PROFILE`).
     */
    params: z.union([z.enum(profileNames), ParamsSpec]).optional(),
    /** Scheme for a profile. BGV (default) keeps ciphertexts in NTT form; BFV pays 2 NTTs per query ciphertext. */
    scheme: z.enum(SEARCH_SCHEMES).default('bgv'),
    /** D: components per vector. */
    dimension: z.number().int().min(1).max(SEARCH_MAX_DIMENSION),
    /** V: rows in the database. */
    rows: z.number().int().min(1).max(SEARCH_MAX_ROWS),
    /** `cosine` normalises every vector (scores ≈ cosine × s²); `dot` keeps norms up to `maxNorm`. */
    metric: z.enum(['cosine', 'dot']).default('cosine'),
    /** `dot` only: the largest Euclidean norm of any database or query vector. */
    maxNorm: z.number().positive().finite().optional(),
    /**
     * Scale factor s; default the largest that keeps every score inside (−t/2, t/2). In
     * cluster-private search without `params`, t itself is chosen from the layout
     * (`clusterPlainModulus`), so the default s is larger there.
     */
    scale: z.number().int().positive().optional(),
    /**
     * Who rotates the query by the baby steps: `client` (it encrypts the g rotations of q:
     * g ciphertexts up, fewer rotations) or `server` (one ciphertext up, Galois keys for
     * steps 1 and g). Chosen with g to minimise the end-to-end time over `link` when left out.
     */
    babySteps: z.enum(['client', 'server']).optional(),
    /**
     * Server-side baby steps hoisted (Halevi–Shoup): the g − 1 rotations of the query share
     * one decomposition in the key-switching kernel, for Galois keys for every step 1 … g − 1
     * (instead of step 1 alone) uploaded once. g is chosen with the hoisted rotation's cost.
     * Only where the kernel runs (BGV in NTT form, every prime and t below 2^31); elsewhere
     * SEAL rotates one step at a time and the option is ignored (no extra keys). In
     * cluster-private search without `params` it also lets t grow (chained baby steps add
     * their rotations' key-switching noise to the query; hoisted ones add one each).
     */
    hoistBabySteps: z.boolean().default(false),
    /** g, the baby step; chosen to minimise the estimated end-to-end time over `link` when left out. */
    babyStep: z.number().int().min(1).optional(),
    /**
     * The client's link, which the defaults are chosen for: `broadband` (20/100 Mbit/s up/down,
     * 20 ms round trip; default), `mobile` (5/20 Mbit/s, 60 ms) or `{ upMbps, downMbps, rttMs }`.
     */
    link: SearchLinkSchema.default('broadband'),
    /** `client` baby steps: at most this many query ciphertexts (upload bound) when choosing g. */
    maxQueryCiphertexts: z.number().int().min(1).max(4096).default(16),
    /**
     * How query ciphertexts travel (and responses unless `responseCompression` says otherwise),
     * chosen for `link` when left out (packed on any link this project measured):
     * `packed` (each residue in ⌈log2 q⌉ bits: 28.2 KB per seeded query ciphertext at n=4096),
     * SEAL's `zstd` (≈ 45% smaller than none) or `none` (SEAL's 64-bit words; fastest to load).
     */
    compression: z.enum(SEARCH_WIRE_ENCODINGS).optional(),
    /** How the server writes response ciphertexts (at one prime after the mod switch); default `compression`. */
    responseCompression: z.enum(SEARCH_WIRE_ENCODINGS).optional(),
    /** Server: keep the processed database in NTT form (default; 2.5–7× faster multiplies). */
    nttForm: z.boolean().default(true),
    /**
     * Cluster-private search (SEARCH.md, "Cluster-private mode"): 0 or left out = exact search
     * over every row (the default); C ≥ 2 = the database in C balanced clusters, the query
     * selecting the client's cluster obliviously and the response holding one cluster's
     * scores; `auto` = the count (or exact) with the least modelled end-to-end time.
     */
    clusters: z.union([z.number().int().min(0).max(SEARCH_MAX_ROWS), z.literal('auto')]).optional(),
  })
  .strict()

export type SearchConfigInput = z.input<typeof SearchConfigInput>

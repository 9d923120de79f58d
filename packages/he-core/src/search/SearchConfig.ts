import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import { z } from 'zod'
import { HeError } from '../errors/HeError.ts'
import { describeParams } from '../params/describeParams.ts'
import { ParamsSpec, type ResolvedParams, ResolvedParamsSchema } from '../params/ParamsSpec.ts'
import { parseParams } from '../params/parseParams.ts'
import {
  type ClusterSearchPlan,
  chooseClusterSearchPlan,
  clusterBabyStepCandidates,
  clusterCountCandidates,
} from './chooseClusterSearchPlan.ts'
import { chooseSearchPlan, type SearchPlanCandidate } from './chooseSearchPlan.ts'
import { clusteredSearchConfig } from './clusteredSearchConfig.ts'
import { planClusterLayout, SearchClusterLayoutSchema } from './searchClusterLayout.ts'
import {
  countSearchOperations,
  galoisStepsFor,
  SEARCH_WIRE_ENCODINGS,
  SearchOperationCountSchema,
  usesKeySwitchKernel,
} from './searchCost.ts'
import { resolveSearchLink, SearchEndToEndEstimateSchema, SearchLinkSchema } from './searchEndToEnd.ts'
import { nextPowerOfTwo, planBlocks, SearchBlockSchema, type SearchShape } from './searchLayout.ts'
import {
  CLUSTER_SEARCH_PROFILE,
  defaultSearchProfile,
  isSearchProfileName,
  plainModulusOf,
  SEARCH_PARAMS_PROFILES,
  SEARCH_SCHEMES,
  type SearchScheme,
  searchProfileParams,
} from './searchParams.ts'
import { assertSearchMemoryFits, searchProcessedMemory } from './searchProcessedMemory.ts'
import { withDroppedResponseBytes } from './searchResponseDroppedBits.ts'

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
     * from D' = 512 on (`defaultSearchProfile`), where `n4096` leaves too little noise budget.
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

/** A validated search config with every derived number. Plain data: post it to workers as is. */
export const SearchConfigSchema = z
  .object({
    /** 32 hex chars: SHA-256 of the fields client and server must agree on. */
    configId: z.string(),
    params: ResolvedParamsSchema,
    scheme: z.enum(SEARCH_SCHEMES),
    polyModulusDegree: z.number().int(),
    /** The plain modulus t. */
    plainModulus: z.number().int(),
    /** D */
    dimension: z.number().int(),
    /** D' = nextPow2(D): the query's period along a batching row. */
    paddedDimension: z.number().int(),
    /** V */
    rows: z.number().int(),
    metric: z.enum(['cosine', 'dot']),
    /** Norm bound of every vector (1 for cosine). */
    maxNorm: z.number(),
    /** s: vectors are scaled by s and rounded; |score| ≤ (s·maxNorm + √D/2)² ≤ (t−1)/2. */
    scale: z.number().int(),
    /** The largest s these params allow for D and maxNorm. */
    maxScale: z.number().int(),
    babySteps: z.enum(['client', 'server']),
    /** Server-side baby steps rotate the query by each step 1 … g − 1 from one decomposition. */
    hoistBabySteps: z.boolean(),
    /** g */
    babyStep: z.number().int(),
    /** h = ceil(D'/g) for a full block. */
    giantSteps: z.number().int(),
    /** Exactly the rotation steps the server uses (empty: no Galois keys at all). */
    galoisSteps: z.array(z.number().int()),
    /** Ciphertexts in one query: g with client-side baby steps, else 1. */
    queryCiphertexts: z.number().int(),
    blocks: z.array(SearchBlockSchema),
    operations: SearchOperationCountSchema,
    /** Model estimate of the server total (decode, load, compute, save) on this VM. Measured numbers come from the benchmark. */
    estimatedServerMs: z.number(),
    /** Model estimate of one query end to end over the config's link (what chose the defaults), with its bytes. */
    estimate: SearchEndToEndEstimateSchema.optional(),
    /** Compression of the query ciphertexts (the client's choice; the server loads either). */
    compression: z.enum(SEARCH_WIRE_ENCODINGS),
    /** Compression of the response ciphertexts (the server's choice; the client loads either). */
    responseCompression: z.enum(SEARCH_WIRE_ENCODINGS),
    nttForm: z.boolean(),
    /**
     * Cluster-private mode's layout (absent in exact mode). Then `rows` and `dimension` are the
     * database's, `paddedDimension` is the chunk width W = n/2, `blocks` cover the m virtual
     * rows of one cluster and count every chunk's diagonals, and `queryCiphertexts` is the
     * number of chunks.
     */
    clusters: SearchClusterLayoutSchema.optional(),
  })
  .strict()
export type SearchConfig = z.infer<typeof SearchConfigSchema>

function invalid(field: string, message: string, details: Record<string, unknown> = {}): HeError {
  return new HeError('INVALID_PARAMS', `${field}: ${message}`, { details: { field, ...details } })
}

/**
 * The largest scale s with (s·R + √D/2)² ≤ (t−1)/2: a scaled, rounded vector has
 * norm ≤ s·R + √D/2 (each coordinate moves by ≤ 1/2), so by Cauchy–Schwarz every
 * score of a database row and a query is at most (t−1)/2 in absolute value and
 * decrypts exactly (centred mod t). For t = 65537, D = 16, R = 1: s = 179.
 */
export function maxSearchScale(plainModulus: number, dimension: number, maxNorm: number): number {
  return Math.floor((Math.sqrt((plainModulus - 1) / 2) - Math.sqrt(dimension) / 2) / maxNorm)
}

/**
 * The params of exact search (`clustered` false) or of cluster-private search. Cluster-private
 * BGV without `params` gets `n4096-cluster` at t = `plainModulus` (its t is chosen from the
 * layout; 65537 while the plan is made, which no choice of the plan depends on).
 */
function resolveParams(
  input: z.output<typeof SearchConfigInput>,
  clustered: boolean,
  plainModulus?: number,
): ResolvedParams {
  if (clustered && input.params === undefined && input.scheme === 'bgv') {
    return parseParams(searchProfileParams(CLUSTER_SEARCH_PROFILE, input.scheme, plainModulus))
  }
  // Cluster-private BFV queries are chunks of n/2 = 2048 positions at n = 4096: the profile for that width.
  const width = clustered ? Math.max(2048, nextPowerOfTwo(input.dimension)) : nextPowerOfTwo(input.dimension)
  const profile = input.params ?? defaultSearchProfile(width)
  if (isSearchProfileName(profile)) return parseParams(searchProfileParams(profile, input.scheme))
  const params = parseParams(profile)
  if (params.scheme === 'ckks') {
    throw invalid('params.scheme', 'private search needs exact integer scores: use BFV or BGV batching, not CKKS')
  }
  return params
}

/** The scale s of a config at t: the one asked for, checked, or the largest t allows; and that largest. */
export function searchScaleOf(
  spec: Pick<z.output<typeof SearchConfigInput>, 'dimension' | 'scale'>,
  plainModulus: number,
  maxNorm: number,
): { scale: number; maxScale: number } {
  const t = plainModulus
  const dimension = spec.dimension
  const maxScale = maxSearchScale(t, dimension, maxNorm)
  if (maxScale < 1) {
    throw invalid(
      'params.plainModulus',
      `t=${t} is too small for D=${dimension} and norm ${maxNorm}: scores must fit (−t/2, t/2), which needs (s·${maxNorm} + √D/2)² ≤ (t−1)/2 with s ≥ 1; use a larger t or a smaller maxNorm`,
      { limit: t },
    )
  }
  const scale = spec.scale ?? maxScale
  if (scale > maxScale) {
    throw invalid(
      'scale',
      `s=${scale} can overflow: scores must fit (−t/2, t/2) with t=${t}, so s ≤ (√((t−1)/2) − √D/2)/maxNorm = ${maxScale}`,
      { limit: maxScale },
    )
  }
  return { scale, maxScale }
}

export function configIdOf(fields: Record<string, unknown>): string {
  return bytesToHex(sha256(new TextEncoder().encode(JSON.stringify(fields)))).slice(0, 32)
}

/**
 * Validates a search config and derives everything client and server need: D', s,
 * g (chosen by the cost model unless given), the blocks, the exact Galois steps and
 * the configId. Impossible combinations throw `INVALID_PARAMS` naming the limit.
 */
export function resolveSearchConfig(
  input: SearchConfigInput | unknown,
  options: {
    /**
     * Refuse a config whose processed database is above this many bytes in the form it is
     * held in (`searchProcessedMemory`; default its form's limit: SEARCH_MAX_PROCESSED_BYTES
     * of SEAL plaintexts in one WASM heap, SEARCH_MAX_KERNEL_DIAGONAL_BYTES of u32 residues
     * in the key-switching kernel's diagonal memory). A node serving one shard checks its
     * own part instead, and a client, which processes nothing, passes Infinity.
     */
    maxProcessedBytes?: number
  } = {},
): SearchConfig {
  const parsed = SearchConfigInput.safeParse(input)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const field = issue?.path.join('.') || 'config'
    throw new HeError('INVALID_INPUT', `search config ${field}: ${issue?.message ?? 'invalid'}`, {
      cause: parsed.error,
      details: { field },
    })
  }
  const spec = parsed.data
  const clustered = spec.clusters !== undefined && spec.clusters !== 0
  const params = resolveParams(spec, false)
  const scheme = params.scheme as SearchScheme
  const facts = describeParams(params)
  const n = params.polyModulusDegree
  const t = plainModulusOf(params)
  const dimension = spec.dimension
  const paddedDimension = nextPowerOfTwo(dimension)
  if (paddedDimension > n / 2) {
    throw invalid(
      'dimension',
      `D=${dimension} pads to D'=${paddedDimension}, which must divide the batching row of n/2=${n / 2} slots (the query repeats with period D' along each row and rotations act on rows); use D ≤ ${n / 2} or a larger n`,
      { limit: n / 2 },
    )
  }
  if (spec.metric === 'cosine' && spec.maxNorm !== undefined) {
    throw invalid('maxNorm', 'cosine normalises every vector to norm 1; maxNorm applies to the dot metric only')
  }
  const maxNorm = spec.metric === 'dot' ? (spec.maxNorm ?? 1) : 1
  const base = { polyModulusDegree: n, dimension, paddedDimension, rows: spec.rows }
  // Hoisting is the key-switching kernel's: where SEAL rotates, extra keys would buy nothing.
  const kernelHoists =
    spec.hoistBabySteps && usesKeySwitchKernel({ babyRotations: 1, giantRotations: 0 }, facts, scheme, spec.nttForm)
  const link = resolveSearchLink(spec.link)
  const exactPlan = () =>
    chooseSearchPlan(
      base,
      scheme,
      facts,
      {
        babySteps: spec.babySteps,
        babyStep: spec.babyStep,
        queryEncoding: spec.compression,
        responseEncoding: spec.responseCompression ?? spec.compression,
        maxQueryCiphertexts: spec.maxQueryCiphertexts,
        nttForm: spec.nttForm,
        keySwitching: facts.keySwitching,
        hoistBabySteps: kernelHoists,
      },
      link,
    )
  const clusterParams = clustered ? resolveParams(spec, true) : params
  const clusterFacts = describeParams(clusterParams)
  const clusterHoists =
    spec.hoistBabySteps &&
    usesKeySwitchKernel({ babyRotations: 1, giantRotations: 0 }, clusterFacts, scheme, spec.nttForm)
  const clusterPlan = clustered ? chooseClusters(spec, scheme, clusterFacts, clusterHoists, link, exactPlan) : undefined
  if (clusterPlan) {
    const chooseT = spec.params === undefined && scheme === 'bgv'
    return clusteredSearchConfig(spec, {
      params: clusterParams,
      scheme,
      facts: clusterFacts,
      maxNorm,
      plan: clusterPlan,
      hoistBabySteps: clusterHoists,
      ...(chooseT ? { paramsAt: (plainModulus: number) => resolveParams(spec, true, plainModulus) } : {}),
      ...(options.maxProcessedBytes === undefined ? {} : { maxProcessedBytes: options.maxProcessedBytes }),
    })
  }
  const { scale, maxScale } = searchScaleOf(spec, t, maxNorm)
  if (spec.babyStep !== undefined && spec.babyStep > paddedDimension) {
    throw new HeError(
      'INVALID_INPUT',
      `search config babyStep: g=${spec.babyStep} exceeds D'=${paddedDimension} (there are only D' diagonals)`,
      { details: { field: 'babyStep', limit: paddedDimension } },
    )
  }
  const plan = exactPlan()
  const side = plan.babySteps
  const babyStep = plan.babyStep
  const transfer = plan.transfer
  const shape: SearchShape = { ...base, babyStep }
  const hoistBabySteps = kernelHoists && side === 'server'
  const galoisSteps = galoisStepsFor(shape, side, hoistBabySteps)
  if (galoisSteps.length > 0 && !facts.keySwitching) {
    throw invalid(
      'babyStep',
      `rotations by ${galoisSteps.join(', ')} need Galois keys, which n=${n} with a single prime cannot have; use client-side baby steps with g=D'=${paddedDimension}`,
    )
  }
  const blocks = planBlocks(shape)
  const operations = countSearchOperations(shape, scheme, side)
  assertSearchMemoryFits(
    searchProcessedMemory({ params, scheme, nttForm: spec.nttForm, operations, polyModulusDegree: n, blocks }),
    `V=${spec.rows} × D'=${paddedDimension}`,
    options.maxProcessedBytes,
  )
  const contract = {
    v: 1,
    params,
    t,
    dimension,
    rows: spec.rows,
    metric: spec.metric,
    maxNorm,
    scale,
    babySteps: side,
    babyStep,
    // Only when set, so every config without it keeps its id.
    ...(hoistBabySteps ? { hoistBabySteps } : {}),
  }
  return withDroppedResponseBytes({
    configId: configIdOf(contract),
    params,
    scheme,
    polyModulusDegree: n,
    plainModulus: t,
    dimension,
    paddedDimension,
    rows: spec.rows,
    metric: spec.metric,
    maxNorm,
    scale,
    maxScale,
    babySteps: side,
    hoistBabySteps,
    babyStep,
    giantSteps: Math.ceil(paddedDimension / babyStep),
    galoisSteps,
    queryCiphertexts: operations.queryCiphertexts,
    blocks,
    operations,
    estimatedServerMs: plan.estimatedServerMs,
    estimate: plan.estimate,
    compression: transfer.query,
    responseCompression: transfer.response,
    nttForm: spec.nttForm,
  })
}

/**
 * The shape numbers of a resolved config (for the layout functions). In cluster-private
 * mode: one chunk's matrix (m virtual rows, W = n/2 columns).
 */
export function searchShapeOf(config: SearchConfig): SearchShape {
  if (config.clusters) {
    return {
      polyModulusDegree: config.polyModulusDegree,
      dimension: config.paddedDimension,
      paddedDimension: config.paddedDimension,
      rows: config.clusters.rowsPerCluster,
      babyStep: config.babyStep,
    }
  }
  return {
    polyModulusDegree: config.polyModulusDegree,
    dimension: config.dimension,
    paddedDimension: config.paddedDimension,
    rows: config.rows,
    babyStep: config.babyStep,
  }
}

/**
 * The cluster-private plan the input asks for: none for exact search (0 or left out), the
 * plan for C clusters, or under `auto` the cluster count (or exact search, then none) with
 * the least modelled end-to-end time over the link.
 */
function chooseClusters(
  spec: z.output<typeof SearchConfigInput>,
  scheme: SearchScheme,
  facts: ReturnType<typeof describeParams>,
  hoistBabySteps: boolean,
  link: ReturnType<typeof resolveSearchLink>,
  exactPlan: () => SearchPlanCandidate,
): ClusterSearchPlan | undefined {
  if (spec.clusters === undefined || spec.clusters === 0) return undefined
  if (spec.babySteps === 'client') {
    throw invalid(
      'babySteps',
      'cluster-private search rotates its query chunks on the server: leave babySteps out or set it to server',
    )
  }
  const n = facts.polyModulusDegree
  const base = { polyModulusDegree: n, rows: spec.rows, dimension: spec.dimension }
  const constraints = {
    babyStep: spec.babyStep,
    queryEncoding: spec.compression,
    responseEncoding: spec.responseCompression ?? spec.compression,
    nttForm: spec.nttForm,
    hoistBabySteps,
  }
  const planFor = (clusters: number) => {
    if (spec.babyStep !== undefined) {
      const allowed = clusterBabyStepCandidates(planClusterLayout(n, spec.rows, spec.dimension, clusters))
      if (!allowed.includes(spec.babyStep)) {
        throw new HeError(
          'INVALID_INPUT',
          `search config babyStep: cluster-private search takes g in ${allowed.join(', ')} (powers of two up to n/4)`,
          { details: { field: 'babyStep' } },
        )
      }
    }
    return chooseClusterSearchPlan(base, clusters, scheme, facts, constraints, link)
  }
  if (spec.clusters !== 'auto') return planFor(spec.clusters)
  const exact = exactPlan()
  const best = clusterCountCandidates(n, spec.rows)
    .map(planFor)
    .sort((x, y) => x.estimate.totalMs - y.estimate.totalMs)[0]
  return best && best.estimate.totalMs < exact.estimate.totalMs ? best : undefined
}

import type { z } from 'zod'
import { HeError } from '../errors/HeError.ts'
import { describeParams } from '../params/describeParams.ts'
import type { ResolvedParams } from '../params/ParamsSpec.ts'
import { parseParams } from '../params/parseParams.ts'
import { chooseSearchClusters } from './chooseSearchClusters.ts'
import { chooseSearchPlan } from './chooseSearchPlan.ts'
import { clusteredSearchConfig } from './clusteredSearchConfig.ts'
import { configIdOf } from './configIdOf.ts'
import { invalidSearchParam } from './invalidSearchParam.ts'
import { SearchConfigInput } from './SearchConfigInput.ts'
import type { SearchConfigSchema } from './SearchConfigSchema.ts'
import { countSearchOperations, galoisStepsFor, usesKeySwitchKernel } from './searchCost.ts'
import { resolveSearchLink } from './searchEndToEnd.ts'
import { nextPowerOfTwo, planBlocks, type SearchShape } from './searchLayout.ts'
import {
  CLUSTER_SEARCH_PROFILE,
  defaultSearchProfile,
  isSearchProfileName,
  NOISE_FALLBACK_PROFILE,
  plainModulusOf,
  type SearchScheme,
  searchProfileParams,
} from './searchParams.ts'
import { assertSearchMemoryFits, searchProcessedMemory } from './searchProcessedMemory.ts'
import { leavesResponseBudget, withDroppedResponseBytes } from './searchResponseDroppedBits.ts'
import { searchScaleOf } from './searchScaleOf.ts'

/** A validated search config with every derived number (`SearchConfigSchema`). Plain data: post it to workers as is. */
export type SearchConfig = z.infer<typeof SearchConfigSchema>

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
    throw invalidSearchParam(
      'params.scheme',
      'private search needs exact integer scores: use BFV or BGV batching, not CKKS',
    )
  }
  return params
}

/**
 * Validates a search config and derives everything client and server need: D', s,
 * g (chosen by the cost model unless given), the blocks, the exact Galois steps and
 * the configId. Impossible combinations throw `INVALID_PARAMS` naming the limit.
 *
 * Without `params`, exact search gets `defaultSearchProfile(D')`, and `NOISE_FALLBACK_PROFILE`
 * when the plan chosen at that profile has a response noise bound that leaves no bit of noise
 * budget (`leavesResponseBudget`): the client would refuse some responses.
 */
export function resolveSearchConfig(
  input: SearchConfigInput | unknown,
  options: ResolveSearchOptions = {},
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
  const config = resolveParsed(parsed.data, options)
  // The default profile by D' alone can leave a response no noise budget: its noise grows with
  // the baby step g the plan picks, and g grows with the rows (V = 80,000, D = 256: g = 64).
  if (parsed.data.params === undefined && !config.clusters && !leavesResponseBudget(config)) {
    return resolveParsed({ ...parsed.data, params: NOISE_FALLBACK_PROFILE }, options)
  }
  return config
}

/** Options of `resolveSearchConfig`. */
export interface ResolveSearchOptions {
  /**
   * Refuse a config whose processed database is above this many bytes in the form it is
   * held in (`searchProcessedMemory`; default its form's limit: SEARCH_MAX_PROCESSED_BYTES
   * of SEAL plaintexts in one WASM heap, SEARCH_MAX_KERNEL_DIAGONAL_BYTES of u32 residues
   * in the key-switching kernel's diagonal memory). A node serving one shard checks its
   * own part instead, and a client, which processes nothing, passes Infinity.
   */
  maxProcessedBytes?: number
}

function resolveParsed(spec: z.output<typeof SearchConfigInput>, options: ResolveSearchOptions): SearchConfig {
  const clustered = spec.clusters !== undefined && spec.clusters !== 0
  const params = resolveParams(spec, false)
  const scheme = params.scheme as SearchScheme
  const facts = describeParams(params)
  const n = params.polyModulusDegree
  const t = plainModulusOf(params)
  const dimension = spec.dimension
  const paddedDimension = nextPowerOfTwo(dimension)
  if (paddedDimension > n / 2) {
    throw invalidSearchParam(
      'dimension',
      `D=${dimension} pads to D'=${paddedDimension}, which must divide the batching row of n/2=${n / 2} slots (the query repeats with period D' along each row and rotations act on rows); use D ≤ ${n / 2} or a larger n`,
      { limit: n / 2 },
    )
  }
  if (spec.metric === 'cosine' && spec.maxNorm !== undefined) {
    throw invalidSearchParam(
      'maxNorm',
      'cosine normalises every vector to norm 1; maxNorm applies to the dot metric only',
    )
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
  const clusterPlan = clustered
    ? chooseSearchClusters(spec, scheme, clusterFacts, clusterHoists, link, exactPlan)
    : undefined
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
    throw invalidSearchParam(
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

import type { z } from 'zod'
import { HeError } from '../errors/HeError.ts'
import type { describeParams } from '../params/describeParams.ts'
import type { ResolvedParams } from '../params/ParamsSpec.ts'
import type { ClusterSearchPlan } from './chooseClusterSearchPlan.ts'
import { clusterPlainModulus } from './clusterPlainModulus.ts'
import { configIdOf } from './configIdOf.ts'
import type { SearchConfig } from './SearchConfig.ts'
import type { SearchConfigInput } from './SearchConfigInput.ts'
import { planClusterBlocks } from './searchClusterLayout.ts'
import { plainModulusOf, type SearchScheme } from './searchParams.ts'
import { assertSearchMemoryFits, searchProcessedMemory } from './searchProcessedMemory.ts'
import { withDroppedResponseBytes } from './searchResponseDroppedBits.ts'
import { searchScaleOf } from './searchScaleOf.ts'

/** What `resolveSearchConfig` derived before the cluster plan. */
export interface ClusteredConfigFacts {
  params: ResolvedParams
  scheme: SearchScheme
  facts: ReturnType<typeof describeParams>
  maxNorm: number
  plan: ClusterSearchPlan
  /** Baby steps hoisted (the key-switching kernel runs them). */
  hoistBabySteps: boolean
  /** `resolveSearchConfig`'s `maxProcessedBytes`. */
  maxProcessedBytes?: number
  /**
   * Given when t is the config's to choose (cluster-private BGV without `params`): the
   * params at a plain modulus. t is then `clusterPlainModulus` of the config at `params`.
   */
  paramsAt?: (plainModulus: number) => ResolvedParams
}

/**
 * The resolved config of a cluster-private search: the database's V and D, the chunk
 * layout, the blocks of one cluster's m virtual rows and the BSGS plan over the chunks.
 * Its id covers the cluster count, so a processed cache keyed by the config id keys on it.
 */
export function clusteredSearchConfig(
  spec: z.output<typeof SearchConfigInput>,
  derived: ClusteredConfigFacts,
): SearchConfig {
  const { paramsAt, ...fixed } = derived
  if (!paramsAt) return clusteredConfigAt(spec, fixed)
  // The layout, g and the primes are the same at every t: only the noise bound and s move.
  // A scale asked for is checked against the t chosen, not the placeholder's.
  const t = clusterPlainModulus(clusteredConfigAt({ ...spec, scale: undefined }, fixed))
  return clusteredConfigAt(spec, { ...fixed, params: paramsAt(t) })
}

function clusteredConfigAt(spec: z.output<typeof SearchConfigInput>, derived: ClusteredConfigFacts): SearchConfig {
  const { params, scheme, facts, maxNorm, plan, hoistBabySteps } = derived
  const { layout, shape } = plan
  const n = facts.polyModulusDegree
  const blocks = planClusterBlocks(shape, layout)
  if (plan.galoisSteps.length > 0 && !facts.keySwitching) {
    throw new HeError(
      'INVALID_PARAMS',
      `clusters: cluster-private search rotates its query chunks, which needs Galois keys; n=${n} with a single prime cannot have them`,
      { details: { field: 'clusters' } },
    )
  }
  assertSearchMemoryFits(
    searchProcessedMemory({
      params,
      scheme,
      nttForm: spec.nttForm,
      operations: plan.operations,
      polyModulusDegree: n,
      blocks,
    }),
    `V=${spec.rows} in ${layout.clusters} clusters (${layout.chunks} chunks × ${blocks.length} blocks)`,
    derived.maxProcessedBytes,
  )
  const t = plainModulusOf(params)
  const { scale, maxScale } = searchScaleOf(spec, t, maxNorm)
  const contract = {
    v: 1,
    params,
    t,
    dimension: spec.dimension,
    rows: spec.rows,
    metric: spec.metric,
    maxNorm,
    scale,
    babySteps: 'server',
    babyStep: plan.babyStep,
    ...(hoistBabySteps ? { hoistBabySteps } : {}),
    clusters: layout,
  }
  return withDroppedResponseBytes({
    configId: configIdOf(contract),
    params,
    scheme,
    polyModulusDegree: n,
    plainModulus: t,
    dimension: spec.dimension,
    paddedDimension: layout.chunkWidth,
    rows: spec.rows,
    metric: spec.metric,
    maxNorm,
    scale,
    maxScale,
    babySteps: 'server',
    hoistBabySteps,
    babyStep: plan.babyStep,
    giantSteps: Math.ceil(layout.chunkWidth / plan.babyStep),
    galoisSteps: plan.galoisSteps,
    queryCiphertexts: layout.chunks,
    blocks,
    operations: plan.operations,
    estimatedServerMs: plan.estimatedServerMs,
    estimate: plan.estimate,
    compression: plan.transfer.query,
    responseCompression: plan.transfer.response,
    nttForm: spec.nttForm,
    clusters: layout,
  })
}

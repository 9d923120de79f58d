import { cheapestEncoding, type SearchPlanCandidate } from './chooseSearchPlan.ts'
import {
  clusterChunkShape,
  planClusterBlocks,
  planClusterLayout,
  type SearchClusterLayout,
} from './searchClusterLayout.ts'
import {
  estimateServerMs,
  galoisStepsFor,
  type KernelFacts,
  type SearchOperationCount,
  type SearchTransfer,
  type SearchWireEncoding,
} from './searchCost.ts'
import { estimateEndToEnd, type SearchLinkRates } from './searchEndToEnd.ts'
import type { SearchShape } from './searchLayout.ts'
import type { SearchScheme } from './searchParams.ts'

/** What the user fixed of a cluster-private plan. */
export interface ClusterPlanConstraints {
  babyStep?: number | undefined
  queryEncoding?: SearchWireEncoding | undefined
  responseEncoding?: SearchWireEncoding | undefined
  nttForm: boolean
  hoistBabySteps: boolean
}

/** A cluster-private plan: the layout and the BSGS plan over its chunks (server-side baby steps). */
export interface ClusterSearchPlan extends SearchPlanCandidate {
  layout: SearchClusterLayout
  shape: SearchShape
}

/**
 * Operations of one cluster-private query: every chunk's g − 1 baby rotations (shared by
 * the blocks), each block's h − 1 giant rotations (shared by the chunks), every chunk's
 * diagonals multiplied in every block, one response ciphertext per block.
 */
export function countClusterSearchOperations(
  shape: SearchShape,
  layout: SearchClusterLayout,
  scheme: SearchScheme,
): SearchOperationCount {
  const g = shape.babyStep
  const blocks = planClusterBlocks(shape, layout)
  let giantRotations = 0
  let multiplies = 0
  let innerSums = 0
  for (const block of blocks) {
    giantRotations += block.giantSteps - 1
    multiplies += block.diagonals
    innerSums += block.giantSteps
  }
  return {
    queryCiphertexts: layout.chunks,
    babyRotations: layout.chunks * (g - 1),
    giantRotations,
    multiplies,
    additions: multiplies - blocks.length + giantRotations,
    nttTransforms: scheme === 'bfv' ? layout.chunks * g + innerSums : 0,
    responseCiphertexts: blocks.length,
  }
}

/**
 * The baby steps a cluster plan may use: powers of two up to W/2, so g divides every
 * block's per-chunk diagonals (W, or W/2 folded) and each giant step's plaintexts line up
 * chunk-major with the baby set (chunk·g + a).
 */
export function clusterBabyStepCandidates(layout: SearchClusterLayout): number[] {
  const steps: number[] = []
  for (let g = 1; g <= layout.chunkWidth / 2; g *= 2) steps.push(g)
  return steps
}

/**
 * The cluster-private plan for C clusters: g (among `clusterBabyStepCandidates`, or the
 * one given) and the encodings minimising the modelled end-to-end time over `link`.
 */
export function chooseClusterSearchPlan(
  base: { polyModulusDegree: number; rows: number; dimension: number },
  clusters: number,
  scheme: SearchScheme,
  facts: KernelFacts,
  constraints: ClusterPlanConstraints,
  link: SearchLinkRates,
): ClusterSearchPlan {
  const n = base.polyModulusDegree
  const layout = planClusterLayout(n, base.rows, base.dimension, clusters)
  const transfer: SearchTransfer = {
    query: cheapestEncoding('query', constraints.queryEncoding, facts, scheme, constraints.nttForm, link),
    response: cheapestEncoding('response', constraints.responseEncoding, facts, scheme, constraints.nttForm, link),
  }
  const gs = constraints.babyStep === undefined ? clusterBabyStepCandidates(layout) : [constraints.babyStep]
  let best: ClusterSearchPlan | undefined
  for (const g of gs) {
    const shape = clusterChunkShape(n, layout, g)
    const galoisSteps = galoisStepsFor(shape, 'server', constraints.hoistBabySteps)
    const operations = countClusterSearchOperations(shape, layout, scheme)
    const estimatedServerMs = estimateServerMs(
      operations,
      facts,
      scheme,
      constraints.nttForm,
      transfer,
      constraints.hoistBabySteps,
    )
    const estimate = estimateEndToEnd(operations, galoisSteps.length, facts, transfer, estimatedServerMs, link)
    const candidate: ClusterSearchPlan = {
      babySteps: 'server',
      babyStep: g,
      transfer,
      galoisSteps,
      operations,
      estimatedServerMs,
      estimate,
      layout,
      shape,
    }
    if (!best || estimate.totalMs < best.estimate.totalMs) best = candidate
  }
  return best as ClusterSearchPlan
}

/**
 * The cluster counts `auto` weighs: powers of two from 2 until one cluster fits a folded
 * block (m ≤ n/2: more clusters cannot shrink the response, only grow the query).
 */
export function clusterCountCandidates(polyModulusDegree: number, rows: number): number[] {
  const counts: number[] = []
  for (let c = 2; c <= rows; c *= 2) {
    counts.push(c)
    if (Math.ceil(rows / c) <= polyModulusDegree / 2) break
  }
  return counts
}

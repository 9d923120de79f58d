import type { z } from 'zod'
import { HeError } from '../errors/HeError.ts'
import type { describeParams } from '../params/describeParams.ts'
import {
  type ClusterSearchPlan,
  chooseClusterSearchPlan,
  clusterBabyStepCandidates,
  clusterCountCandidates,
} from './chooseClusterSearchPlan.ts'
import type { SearchPlanCandidate } from './chooseSearchPlan.ts'
import { invalidSearchParam } from './invalidSearchParam.ts'
import type { SearchConfigInput } from './SearchConfigInput.ts'
import { planClusterLayout } from './searchClusterLayout.ts'
import type { resolveSearchLink } from './searchEndToEnd.ts'
import type { SearchScheme } from './searchParams.ts'

/**
 * The cluster-private plan the input asks for: none for exact search (0 or left out), the
 * plan for C clusters, or under `auto` the cluster count (or exact search, then none) with
 * the least modelled end-to-end time over the link.
 */
export function chooseSearchClusters(
  spec: z.output<typeof SearchConfigInput>,
  scheme: SearchScheme,
  facts: ReturnType<typeof describeParams>,
  hoistBabySteps: boolean,
  link: ReturnType<typeof resolveSearchLink>,
  exactPlan: () => SearchPlanCandidate,
): ClusterSearchPlan | undefined {
  if (spec.clusters === undefined || spec.clusters === 0) return undefined
  if (spec.babySteps === 'client') {
    throw invalidSearchParam(
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

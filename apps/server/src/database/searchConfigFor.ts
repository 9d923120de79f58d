import { resolveSearchConfig, type SearchConfig } from '@sealbox/he-core/search'
import type { WorkerSetup } from '../executor/WorkerSetup.ts'

/** The search config the server's settings give a database of this shape (main process and workers alike). */
export function searchConfigFor(
  search: WorkerSetup['search'],
  shape: { rows: number; dimension: number },
  shard?: WorkerSetup['shard'],
): SearchConfig {
  // A shard plans the whole database and holds a part of it: its part is checked (checkSearchDatabase), not the whole.
  const limit = shard ? { maxProcessedBytes: Number.POSITIVE_INFINITY } : {}
  return resolveSearchConfig(
    {
      ...(search.profile === undefined ? {} : { params: search.profile }),
      scheme: search.scheme,
      metric: search.metric,
      ...(search.babySteps === undefined ? {} : { babySteps: search.babySteps }),
      ...(search.babyStep === undefined ? {} : { babyStep: search.babyStep }),
      ...(search.hoistBabySteps ? { hoistBabySteps: true } : {}),
      ...(search.clusters === undefined ? {} : { clusters: search.clusters }),
      dimension: shape.dimension,
      rows: shape.rows,
    },
    limit,
  )
}

import { HeError, type ResolvedParams } from '@sealbox/he-core'
import type { KeyLoadTarget } from '@sealbox/he-core/envelope'
import { searchCost } from '@sealbox/he-core/search'
import type { SearchSummary } from '../app/SearchSummary.ts'
import type { JobCost } from './CostAdmission.ts'
import { contextBuildUnits } from './coldWorkCost.ts'
import type { HubSubmitOptions } from './HubSubmitOptions.ts'
import type { WorkerJob } from './jobMessages.ts'
import { keyUploadJobCost } from './keyUploadJobCost.ts'

/**
 * A job's estimated work: the route's program cost (with the build of `coldContext`,
 * its parameters when no worker ran them lately; the inline executor prices its own cold
 * work by what its one SEAL instance holds), he-core's search model of the warm worker's
 * `search`, a key upload's size (`keyUploadJobCost`, under the search's `load` target), or
 * a unit for small jobs.
 */
export function jobCost(
  job: WorkerJob,
  options: Pick<HubSubmitOptions, 'cost' | 'peakHeapBytes'> & {
    coldContext: ResolvedParams | undefined
    search: SearchSummary | undefined
    load: KeyLoadTarget | undefined
    maxPolyModulusDegree: number
  },
): JobCost {
  switch (job.type) {
    case 'evaluate':
      return {
        units: options.cost ?? 1,
        what: 'program',
        ...(options.peakHeapBytes === undefined ? {} : { peakHeapBytes: options.peakHeapBytes }),
        ...(options.coldContext ? { coldUnits: contextBuildUnits(options.coldContext) } : {}),
      }
    case 'search': {
      const perQuery = Number(options.search?.config.estimatedServerMs) || 1
      // A part of a split query is priced by its share of the blocks: the parts sum to the whole.
      const blocks = options.search?.config.blocks.length ?? 1
      const share = job.blocks ? (job.blocks.end - job.blocks.start) / blocks : 1
      return { units: searchCost({ estimatedServerMs: perQuery * share }, job.queries.length), what: 'search' }
    }
    case 'inspectKeys':
      return keyUploadJobCost(job.bytes, { load: options.load, maxPolyModulusDegree: options.maxPolyModulusDegree })
    case 'fault':
      return { units: 1, what: 'job' }
    default: {
      const never: never = job
      throw new HeError('INTERNAL', `unknown job ${JSON.stringify(never)}`)
    }
  }
}

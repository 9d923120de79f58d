import type { FastifyBaseLogger } from 'fastify'
import type { ExecutorMode } from '../config/ServerConfig.ts'
import type { ServerMetrics } from '../metrics/ServerMetrics.ts'
import type { ExecutorEvents } from './Executor.ts'
import type { FairScheduler } from './FairScheduler.ts'
import type { WarmInfo } from './jobMessages.ts'

/** How the log tells a processed-cache outcome. */
const CACHE_OUTCOMES = {
  hit: 'read from the cache',
  written: 'processed and written to the cache',
  rebuilt: 'cache damaged or stale: processed again and rewritten',
  busy: 'processed (another worker writes the cache)',
  unwritable: 'processed; the cache could not be written',
} as const

/** How the warm log line tells where a worker's processed database came from. */
function warmDatabaseNote(info: WarmInfo): string {
  if (info.diagonals?.attached) return ": attached to the node's shared diagonals (nothing processed)"
  const shared = info.diagonals?.shared ? ' into the shared diagonals' : ''
  if (info.cache) return `: processed database${shared} ${CACHE_OUTCOMES[info.cache.outcome]}`
  return shared ? `: processed database${shared}` : ''
}

/**
 * What the hub does when an executor of `mode` reports: logs and counts warm and replaced
 * workers and the database's processing, and tells the executor's scheduler (once it
 * exists: `scheduler()`) of a warm worker and of free capacity.
 */
export function hubExecutorEvents(
  mode: ExecutorMode,
  options: { log: FastifyBaseLogger; metrics: ServerMetrics; scheduler: () => FairScheduler | undefined },
): ExecutorEvents {
  const { log, metrics, scheduler } = options
  return {
    onWarm: (info) => {
      const processing = info.search.database.processing
      log.info(
        {
          worker: info.worker.workerId,
          warmMs: Math.round(info.warmMs),
          ...(info.worker.heapBytes === undefined ? {} : { heapBytes: info.worker.heapBytes }),
          processingMs: Math.round(processing.milliseconds),
          cachedBlocks: processing.cachedBlocks ?? 0,
          blocks: processing.blocks.length,
          ...(info.cache ? { cache: info.cache } : {}),
          ...(info.diagonals ? { diagonals: info.diagonals } : {}),
        },
        `${mode} worker warm${warmDatabaseNote(info)}`,
      )
      metrics.workerWarm(mode, info)
      scheduler()?.workerWarm(info.worker)
    },
    onReplaced: (workerId, reason) => {
      log.warn({ worker: workerId, reason }, `${mode} worker replaced`)
      metrics.replaced(mode, reason)
    },
    onProgress: (workerId, progress) => {
      const percent = Math.floor((100 * progress.blocksDone) / progress.blocks)
      log.info(
        { worker: workerId, ...progress, milliseconds: Math.round(progress.milliseconds) },
        `${mode} worker processing the database: ${progress.blocksDone}/${progress.blocks} blocks (${percent}%), ${progress.fromCache} from the cache, ${(progress.milliseconds / 1000).toFixed(1)} s`,
      )
    },
    onCapacity: () => scheduler()?.pump(),
  }
}

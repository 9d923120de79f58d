import { mkdir, readdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { searchMemoryPlace } from '@sealbox/he-core/search'
import type { FastifyBaseLogger } from 'fastify'
import type { ServerConfig } from '../config/ServerConfig.ts'
import { checkSearchDatabase } from '../database/checkSearchDatabase.ts'
import { removeAbandonedCacheWrites } from '../database/ProcessedDatabaseCache.ts'
import { searchDatabaseContentHash } from '../database/searchDatabaseContentHash.ts'
import type { WorkerSetup } from './WorkerSetup.ts'

/**
 * Before any worker loads the database: refuses it from its shape when the settings
 * cannot serve it, then (SEARCH_CACHE) names it by its content hash for the processed
 * cache and clears writes a dead process left there. Resolves to the workers' setup,
 * with the processed cache when there is one.
 */
export async function admitSearchDatabase(options: {
  setup: WorkerSetup
  config: Pick<ServerConfig, 'SEARCH_CACHE' | 'DATA_DIR'>
  log: FastifyBaseLogger
}): Promise<WorkerSetup> {
  const { setup, config, log } = options
  const started = performance.now()
  const checked = await checkSearchDatabase(setup)
  log.info(
    {
      rows: checked.rows,
      dimension: checked.dimension,
      configId: checked.config.configId,
      processedBytes: checked.processedBytes,
      form: checked.memory.form,
    },
    `database accepted from its shape: V=${checked.rows} × D=${checked.dimension}, ${(checked.processedBytes / 2 ** 20).toFixed(0)} MiB processed, ${searchMemoryPlace(checked.memory)}`,
  )
  if (!config.SEARCH_CACHE) return setup
  const contentHash = await searchDatabaseContentHash(setup.database)
  if (contentHash === undefined) return setup
  const dir = join(resolve(config.DATA_DIR), 'search-cache')
  await mkdir(dir, { recursive: true })
  removeAbandonedCacheWrites(dir, await readdir(dir))
  log.info(
    { contentHash, hashMs: Math.round(performance.now() - started), dir },
    'processed-database cache: database named by its content hash',
  )
  return { ...setup, searchCache: { dir, contentHash } }
}

import { HeError } from '../errors/HeError.ts'
import { paramsInputOf } from '../params/ContextCache.ts'
import { resolveSearchConfig, type SearchConfig } from './SearchConfig.ts'
import type { SearchConfigInput } from './SearchConfigInput.ts'
import type { SearchLinkInput, SearchLinkRates } from './searchEndToEnd.ts'

/** The input that resolves to `config` again (every choice explicit). */
export function searchConfigInputOf(config: SearchConfig): SearchConfigInput {
  return {
    params: paramsInputOf(config.params),
    dimension: config.dimension,
    rows: config.rows,
    metric: config.metric,
    ...(config.metric === 'dot' ? { maxNorm: config.maxNorm } : {}),
    scale: config.scale,
    babySteps: config.babySteps,
    ...(config.hoistBabySteps ? { hoistBabySteps: true } : {}),
    babyStep: config.babyStep,
    compression: config.compression,
    // A config from an older server has no responseCompression: the query's then.
    responseCompression: config.responseCompression ?? config.compression,
    nttForm: config.nttForm,
    ...(config.clusters ? { clusters: config.clusters.clusters } : {}),
    ...(config.estimate ? { link: linkInputOf(config.estimate.link) } : {}),
  }
}

function linkInputOf(link: SearchLinkRates): SearchLinkInput {
  if (link.name === 'broadband' || link.name === 'mobile') return link.name
  return { upMbps: link.upMbps, downMbps: link.downMbps, rttMs: link.rttMs }
}

/**
 * Rebuilds a search config received as JSON (e.g. from `GET /api/v1/search/config`)
 * from its contract fields and checks that it names the same configId, so a client
 * never trusts derived numbers it did not derive itself.
 */
export function verifySearchConfig(json: unknown): SearchConfig {
  if (typeof json !== 'object' || json === null) throw new HeError('INVALID_INPUT', 'a search config must be an object')
  const claimed = json as SearchConfig
  let config: SearchConfig
  try {
    // A client processes nothing: a sharded database may be larger than one heap holds.
    config = resolveSearchConfig(searchConfigInputOf(claimed), { maxProcessedBytes: Number.POSITIVE_INFINITY })
  } catch (error) {
    throw new HeError('INVALID_INPUT', `the search config does not resolve: ${(error as Error).message}`, {
      cause: error,
    })
  }
  if (config.configId !== claimed.configId) {
    throw new HeError(
      'INVALID_INPUT',
      `the search config claims id ${String(claimed.configId)} but its fields resolve to ${config.configId}`,
    )
  }
  return config
}

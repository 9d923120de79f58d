import type { ServerConfig } from '../config/ServerConfig.ts'
import type { ExecutorHub } from '../executor/ExecutorHub.ts'
import type { ServerTiming } from '../http/ServerTiming.ts'
import type { ServerMetrics } from '../metrics/ServerMetrics.ts'
import type { OutageTolerantKeyStore } from '../store/OutageTolerantKeyStore.ts'
import type { TokenAuthority } from '../tenancy/TokenAuthority.ts'
import type { TokensFile } from '../tenancy/TokensFile.ts'
import type { SearchCatalogPages } from './SearchCatalogPages.ts'
import type { SearchSummary } from './SearchSummary.ts'

/** What every route handler can reach (`app.sealbox`). */
export interface SealboxServices {
  config: ServerConfig
  auth: TokenAuthority
  /** `TOKENS_FILE`, when configured: `reload()` on SIGHUP. */
  tokensFile: TokensFile | undefined
  /** The configured store, kept serving recently confirmed key sets through an outage (`health()`). */
  store: OutageTolerantKeyStore
  metrics: ServerMetrics
  hub: ExecutorHub
  /** Resolves when the executors have warm workers; rejects when they cannot start. */
  warmup: Promise<void>
  /** The served search config, once a worker is warm. */
  search(): SearchSummary
  /** The served database's public catalog (ids, metadata), once a worker is warm. */
  catalog(): SearchCatalogPages
}

declare module 'fastify' {
  interface FastifyInstance {
    sealbox: SealboxServices
  }
  interface FastifyRequest {
    timing: ServerTiming
  }
}

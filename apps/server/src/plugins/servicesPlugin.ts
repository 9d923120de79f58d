import { mkdir } from 'node:fs/promises'
import { resolve } from 'node:path'
import { HeError } from '@sealbox/he-core'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { SealboxServices } from '../app/SealboxServices.ts'
import { SearchCatalogPages } from '../app/SearchCatalogPages.ts'
import type { SearchSummary } from '../app/SearchSummary.ts'
import type { ServerConfig } from '../config/ServerConfig.ts'
import { ExecutorHub } from '../executor/ExecutorHub.ts'
import { workerSetupFrom } from '../executor/WorkerSetup.ts'
import { KeyStoreMetrics } from '../metrics/KeyStoreMetrics.ts'
import { ServerMetrics } from '../metrics/ServerMetrics.ts'
import { OutageTolerantKeyStore } from '../store/OutageTolerantKeyStore.ts'
import { openKeyStoreAtStart } from '../store/openKeyStore.ts'
import { RateLimitedStoreLog } from '../store/RateLimitedStoreLog.ts'
import { TokenAuthority } from '../tenancy/TokenAuthority.ts'
import { TokensFile } from '../tenancy/TokensFile.ts'

/** Options of `servicesPlugin`. */
export interface ServicesPluginOptions {
  config: ServerConfig
}

/**
 * What every route reaches as `app.sealbox`: the token authority (and its file), the key
 * store, the metrics, and the executors — started here, warming in the background
 * (`warmup` settles when they are warm). Its `onClose` runs after every later plugin's
 * (Fastify closes in reverse order of registration): Fastify has stopped accepting and
 * answered in-flight requests, then the workers stop and the store is flushed and closed.
 */
async function services(app: FastifyInstance, { config }: ServicesPluginOptions): Promise<void> {
  const dataDir = resolve(config.DATA_DIR)
  await mkdir(dataDir, { recursive: true })
  const metrics = new ServerMetrics()
  const auth = await TokenAuthority.create({ mode: config.MODE, tokens: config.TOKENS, dataDir })
  const tokensFile =
    config.TOKENS_FILE === undefined
      ? undefined
      : new TokensFile({
          path: config.TOKENS_FILE,
          fixed: config.TOKENS,
          auth,
          log: app.log,
          onReload: (result) => metrics.tokensReloaded(result),
        })
  await tokensFile?.load()
  tokensFile?.watch()
  const store = new OutageTolerantKeyStore(
    await openKeyStoreAtStart(config, dataDir, app.log, new RateLimitedStoreLog(app.log)),
    { staleMs: config.KEY_STORE_STALE_MS, observer: new KeyStoreMetrics(metrics.registry), log: app.log },
  )
  metrics.configInfo({ store: store.location.type, scheduler: config.SCHEDULING })
  const hub = new ExecutorHub({
    config,
    setup: workerSetupFrom(config, store.location),
    metrics,
    log: app.log,
    kernelForms: store,
  })
  let search: SearchSummary | undefined
  let catalog: SearchCatalogPages | undefined
  const warmup = hub.start().then((warm) => {
    search = warm.search
    catalog = new SearchCatalogPages(warm.search.configId, warm.catalog)
  })
  // Start-up failures are reported by whoever awaits `warmup` (main.ts exits with the message).
  warmup.catch(() => undefined)
  app.decorate('sealbox', {
    config,
    auth,
    tokensFile,
    store,
    metrics,
    hub,
    warmup,
    search() {
      if (!search) {
        throw new HeError('OVERLOADED', 'the server is still warming up its workers', {
          details: { retryAfterSeconds: 2 },
        })
      }
      return search
    },
    catalog() {
      if (!catalog) this.search()
      return catalog as SearchCatalogPages
    },
  } satisfies SealboxServices)
  app.addHook('onClose', async () => {
    tokensFile?.close()
    await hub.close()
    await store.flush()
    await store.close?.()
  })
}

export const servicesPlugin = fp(services, { name: 'sealbox-services', fastify: '5.x' })

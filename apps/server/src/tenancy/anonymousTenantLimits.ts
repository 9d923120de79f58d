import type { FastifyInstance, FastifyRequest } from 'fastify'
import { TokenBucketLimiter } from '../http/TokenBucketLimiter.ts'
import { AnonymousTenants } from './AnonymousTenants.ts'
import type { IssuedToken, Tenant } from './TokenAuthority.ts'

/** What `POST /api/v1/session` asks for a new anonymous tenant. */
export interface AnonymousSessions {
  /**
   * A new anonymous tenant for the client at `address`: FORBIDDEN in production mode,
   * RATE_LIMITED past `SESSION_BURST` / `SESSION_RATE` per address, OVERLOADED at
   * `MAX_ANONYMOUS_TENANTS`.
   */
  issue(address: string): Promise<IssuedToken>
  /** The registry (local mode only). */
  readonly tenants: AnonymousTenants | undefined
}

declare module 'fastify' {
  interface FastifyInstance {
    anonymousSessions: AnonymousSessions
  }
}

/** The route whose PUT stores and whose DELETE frees an anonymous tenant's bytes. */
const KEY_SET_ROUTE = '/api/v1/keysets/:id'

/**
 * Local mode's limits on anonymous tenants: session creation is rate-limited
 * per client address (a token bucket), the number of anonymous tenants is capped, and
 * so are their stored bytes together — checked on every key-set upload of an anonymous
 * tenant before a worker sees it. Production mode issues no anonymous tenants, so it
 * only decorates `app.anonymousSessions` with the refusal.
 *
 * Call it on the root instance before the routes are registered: the hooks it adds must
 * reach the key-set routes wherever they are registered.
 */
export async function anonymousTenantLimits(app: FastifyInstance): Promise<void> {
  const { config, auth, store } = app.sealbox
  if (auth.mode === 'production') {
    app.decorate('anonymousSessions', {
      tenants: undefined,
      issue: async () => auth.issueAnonymous(),
    } satisfies AnonymousSessions)
    return
  }
  const limiter = new TokenBucketLimiter({
    ratePerSecond: config.SESSION_RATE / 60,
    burst: config.SESSION_BURST,
    what: 'new sessions from this address (SESSION_BURST, SESSION_RATE)',
  })
  const tenants = await AnonymousTenants.open({
    maxTenants: config.MAX_ANONYMOUS_TENANTS,
    storageBytes: config.ANONYMOUS_STORAGE_BYTES,
    store,
    dataDir: config.DATA_DIR,
  })
  app.decorate('anonymousSessions', {
    tenants,
    async issue(address) {
      limiter.take(address)
      return tenants.admit(() => auth.issueAnonymous())
    },
  } satisfies AnonymousSessions)

  const uploads = new WeakMap<FastifyRequest, { tenant: Tenant; release: () => void }>()
  // The API plugin's onRequest hook has authenticated the caller by now (request.tenant).
  const anonymousCaller = (request: FastifyRequest): Tenant | undefined =>
    request.tenant?.kind === 'anonymous' ? request.tenant : undefined

  // preHandler: the body is read by now (its size is what is reserved), no worker has seen it yet.
  app.addHook('preHandler', async (request) => {
    if (request.method !== 'PUT' || request.routeOptions.url !== KEY_SET_ROUTE) return
    const tenant = anonymousCaller(request)
    if (!tenant) return
    const body = request.body
    const bytes = body instanceof Uint8Array ? body.length : 0
    const id = (request.params as { id?: unknown }).id
    const previous = typeof id === 'string' ? await store.get(tenant.id, id).catch(() => undefined) : undefined
    // Past the request deadline a reservation whose answer never came stops counting.
    const release = await tenants.reserve(tenant.id, bytes, previous?.bytes ?? 0, config.REQUEST_TIMEOUT_MS + 10_000)
    uploads.set(request, { tenant, release })
  })
  app.addHook('onResponse', async (request, reply) => {
    if (request.routeOptions.url !== KEY_SET_ROUTE) return
    const upload = uploads.get(request)
    try {
      const tenant = upload?.tenant ?? (request.method === 'DELETE' ? anonymousCaller(request) : undefined)
      if (tenant && reply.statusCode < 300) await tenants.refresh(tenant.id)
    } catch (error) {
      request.log.warn({ err: error }, 'could not re-read an anonymous tenant’s stored bytes')
    } finally {
      upload?.release()
    }
  })
  app.addHook('onClose', async () => {
    await tenants.flush()
  })
}

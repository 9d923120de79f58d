import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { TokenBucketLimiter } from '../http/TokenBucketLimiter.ts'
import { AnonymousTenants } from '../tenancy/AnonymousTenants.ts'
import type { IssuedToken, Tenant } from '../tenancy/TokenAuthority.ts'

/** A route-level hook of the key-set routes. */
export type KeySetHook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>

/** What `POST /api/v1/session` asks for a new anonymous tenant, and the key-set routes for their hooks. */
export interface AnonymousSessions {
  /**
   * A new anonymous tenant for the client at `address`: FORBIDDEN in production mode,
   * RATE_LIMITED past `SESSION_BURST` / `SESSION_RATE` per address, OVERLOADED at
   * `MAX_ANONYMOUS_TENANTS`.
   */
  issue(address: string): Promise<IssuedToken>
  /** The registry (local mode only). */
  readonly tenants: AnonymousTenants | undefined
  /**
   * Route-level hooks that hold anonymous tenants' stored bytes to their cap, for the
   * key-set routes to attach where they are registered: `reserveUpload` (a PUT's
   * `preHandler`) reserves the upload's bytes, `settle` (the PUT's and DELETE's
   * `onResponse`) re-reads what the tenant stores and frees the reservation. None in
   * production mode.
   */
  readonly keySetHooks: { reserveUpload?: KeySetHook; settle?: KeySetHook }
}

declare module 'fastify' {
  interface FastifyInstance {
    anonymousSessions: AnonymousSessions
  }
}

/**
 * Local mode's limits on anonymous tenants: session creation is rate-limited per client
 * address (a token bucket), the number of anonymous tenants is capped, and so are their
 * stored bytes together — checked on every key-set upload of an anonymous tenant before a
 * worker sees it, by the hooks the key-set routes attach (`keySetHooks`). Production
 * mode issues no anonymous tenants, so it only decorates `app.anonymousSessions` with
 * the refusal.
 */
async function quotas(app: FastifyInstance): Promise<void> {
  const { config, auth, store } = app.sealbox
  if (auth.mode === 'production') {
    app.decorate('anonymousSessions', {
      tenants: undefined,
      issue: async () => auth.issueAnonymous(),
      keySetHooks: {},
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
  const uploads = new WeakMap<FastifyRequest, { tenant: Tenant; release: () => void }>()
  // The API plugin's onRequest hook has authenticated the caller by now (request.tenant).
  const anonymousCaller = (request: FastifyRequest): Tenant | undefined =>
    request.tenant?.kind === 'anonymous' ? request.tenant : undefined

  app.decorate('anonymousSessions', {
    tenants,
    async issue(address) {
      limiter.take(address)
      return tenants.admit(() => auth.issueAnonymous())
    },
    keySetHooks: {
      // preHandler: the body is read by now (its size is what is reserved), no worker has seen it yet.
      async reserveUpload(request) {
        const tenant = anonymousCaller(request)
        if (!tenant) return
        const body = request.body
        const bytes = body instanceof Uint8Array ? body.length : 0
        const id = (request.params as { id?: unknown }).id
        const previous = typeof id === 'string' ? await store.get(tenant.id, id).catch(() => undefined) : undefined
        // Past the request deadline a reservation whose answer never came stops counting.
        const release = await tenants.reserve(
          tenant.id,
          bytes,
          previous?.bytes ?? 0,
          config.REQUEST_TIMEOUT_MS + 10_000,
        )
        uploads.set(request, { tenant, release })
      },
      async settle(request, reply) {
        const upload = uploads.get(request)
        try {
          const tenant = upload?.tenant ?? (request.method === 'DELETE' ? anonymousCaller(request) : undefined)
          if (tenant && reply.statusCode < 300) await tenants.refresh(tenant.id)
        } catch (error) {
          request.log.warn({ err: error }, 'could not re-read an anonymous tenant’s stored bytes')
        } finally {
          upload?.release()
        }
      },
    },
  } satisfies AnonymousSessions)
  app.addHook('onClose', async () => {
    await tenants.flush()
  })
}

export const quotasPlugin = fp(quotas, { name: 'sealbox-quotas', fastify: '5.x', dependencies: ['sealbox-services'] })

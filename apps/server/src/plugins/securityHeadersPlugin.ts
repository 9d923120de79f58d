import fastifyCors from '@fastify/cors'
import fastifyHelmet from '@fastify/helmet'
import { SEALBOX_HEADERS } from '@sealbox/he-core/client'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/**
 * The Content-Security-Policy of everything but `/docs`: what the built sandbox loads
 * and nothing else. Its scripts, module worker, stylesheet and `.wasm` are same-origin
 * files; compiling SEAL's WebAssembly needs `'wasm-unsafe-eval'` (not `'unsafe-eval'`);
 * the favicon is a `data:` URL. `connect-src` also allows any http(s) URL because the
 * sandbox's Server panel may connect to another sealbox server the user types in (that
 * server must list this origin in its `CORS_ORIGINS`); only ciphertexts and evaluation
 * keys ever go there.
 */
export const SANDBOX_CSP_DIRECTIVES: Record<string, string[]> = {
  'default-src': ["'self'"],
  'script-src': ["'self'", "'wasm-unsafe-eval'"],
  'script-src-attr': ["'none'"],
  'worker-src': ["'self'"],
  'connect-src': ["'self'", 'http:', 'https:'],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
}

/**
 * The CSP of the Swagger UI at `/docs` (its own files; it sets inline styles), given to
 * `@fastify/swagger-ui` as `staticCSP` so it replaces the sandbox's on those routes.
 */
export const DOCS_CSP_DIRECTIVES: Record<string, string[]> = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'script-src-attr': ["'none'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'font-src': ["'self'", 'data:'],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
}

/** Headers a cross-origin page may send (the preflight allows them). */
export const CORS_ALLOWED_HEADERS = [
  'authorization',
  'content-type',
  SEALBOX_HEADERS.executor,
  SEALBOX_HEADERS.droppedBits,
  'if-none-match',
]

/**
 * Security headers, caching defaults and CORS for every response:
 *
 * - `@fastify/helmet`: the CSP above, `X-Content-Type-Options: nosniff`,
 *   `Referrer-Policy: no-referrer`, `X-Frame-Options: DENY`, and COOP `same-origin` +
 *   COEP `require-corp`, which make the sandbox cross-origin isolated (precise timers,
 *   SharedArrayBuffer) as Vite's dev server does. No HSTS: TLS ends at the reverse proxy,
 *   which owns that header.
 * - `Cache-Control: no-store` on every answer that has not set its own (the API, health,
 *   metrics, errors); the sandbox's files set theirs (`serveSandbox`).
 * - CORS only for `CORS_ORIGINS` (none by default). It is registered on the root, so its
 *   `onRequest` hook answers a preflight (204, no token) before any authentication hook.
 */
async function securityHeaders(app: FastifyInstance): Promise<void> {
  const { config } = app.sealbox
  await app.register(fastifyHelmet, {
    contentSecurityPolicy: { useDefaults: false, directives: SANDBOX_CSP_DIRECTIVES },
    crossOriginOpenerPolicy: { policy: 'same-origin' },
    crossOriginEmbedderPolicy: { policy: 'require-corp' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: false,
    xFrameOptions: { action: 'deny' },
  })
  app.addHook('onSend', async (_request, reply, payload) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store')
    return payload
  })
  if (config.CORS_ORIGINS.length > 0) {
    await app.register(fastifyCors, {
      origin: config.CORS_ORIGINS,
      methods: ['GET', 'HEAD', 'PUT', 'POST', 'DELETE'],
      allowedHeaders: CORS_ALLOWED_HEADERS,
      exposedHeaders: [
        'server-timing',
        'retry-after',
        'www-authenticate',
        'x-request-id',
        'etag',
        SEALBOX_HEADERS.executor,
        SEALBOX_HEADERS.queryMs,
        SEALBOX_HEADERS.cost,
      ],
      maxAge: 600,
    })
  }
}

export const securityHeadersPlugin = fp(securityHeaders, {
  name: 'sealbox-security-headers',
  fastify: '5.x',
  dependencies: ['sealbox-services'],
})

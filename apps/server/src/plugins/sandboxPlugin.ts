import { existsSync } from 'node:fs'
import { relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'

const PACKAGE_DIR = fileURLToPath(new URL('../../', import.meta.url))

/** Vite's content-hashed build outputs (`assets/index-B9TaCvDW.js`): a new build gives them new names. */
export const HASHED_ASSET = /^assets\/[^/]+-[A-Za-z0-9_-]{8,}\.[A-Za-z0-9]+$/

/** Cache-Control of hashed assets: their bytes never change under the same name. */
export const IMMUTABLE = 'public, max-age=31536000, immutable'

/**
 * Serves the built sandbox (`WEB_DIST`) at `/`: hashed assets cached for a year as
 * immutable, everything else (`/`, `index.html`) revalidated on every load (`no-cache`)
 * so a new build is picked up at once. Without a build, `/` says where things are.
 * The security headers (CSP, COOP/COEP…) come from `securityHeadersPlugin` on the root.
 */
export async function sandboxPlugin(app: FastifyInstance): Promise<void> {
  const { config } = app.sealbox
  const webDist = config.WEB_DIST === '' ? undefined : resolve(PACKAGE_DIR, config.WEB_DIST)
  if (webDist && existsSync(resolve(webDist, 'index.html'))) {
    await app.register(fastifyStatic, {
      root: webDist,
      prefix: '/',
      wildcard: false,
      cacheControl: false,
      setHeaders(reply, path) {
        const file = relative(webDist, path).split(sep).join('/')
        reply.header('cache-control', HASHED_ASSET.test(file) ? IMMUTABLE : 'no-cache')
      },
    })
    return
  }
  app.get('/', { schema: { hide: true } }, async () => ({
    name: 'sealbox server',
    docs: '/docs',
    api: '/api/v1',
    note: 'the sandbox is served here once apps/web is built',
  }))
}

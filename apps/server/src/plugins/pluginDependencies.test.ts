import Fastify, { type FastifyPluginAsync } from 'fastify'
import { describe, expect, it } from 'vitest'
import { apiPlugin } from './apiPlugin.ts'
import { docsPlugin } from './docsPlugin.ts'
import { loadSheddingPlugin } from './loadSheddingPlugin.ts'
import { metricsPlugin } from './metricsPlugin.ts'
import { quotasPlugin } from './quotasPlugin.ts'
import { receivingPlugin } from './receivingPlugin.ts'
import { securityHeadersPlugin } from './securityHeadersPlugin.ts'

/*
 * buildServer's order is the one its plugins declare: each names the plugins it needs
 * (fastify-plugin `dependencies`), so a plugin registered without them, or before them,
 * refuses to start instead of failing on the first request.
 */
const PLUGINS: Array<[string, FastifyPluginAsync, string]> = [
  ['metrics', metricsPlugin, 'sealbox-services'],
  ['load shedding', loadSheddingPlugin, 'sealbox-services'],
  ['security headers', securityHeadersPlugin, 'sealbox-services'],
  ['quotas', quotasPlugin, 'sealbox-services'],
  ['receiving', receivingPlugin, 'sealbox-services'],
  ['docs', docsPlugin, 'sealbox-contract'],
  ['API', apiPlugin, 'sealbox-services'],
]

describe('server plugins', () => {
  for (const [what, plugin, dependency] of PLUGINS) {
    it(`the ${what} plugin names ${dependency} and will not start without it`, async () => {
      const app = Fastify({ logger: false })
      app.register(plugin)
      await expect(app.ready()).rejects.toThrow(dependency)
      await app.close().catch(() => undefined)
    })
  }
})

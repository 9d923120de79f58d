import { HeError } from '@sealbox/he-core'
import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { TENANT_ID } from '../config/ServerConfig.ts'
import { jobResult } from '../http/jobReply.ts'
import { binaryBody, clientGoneSignal, parseInput } from '../http/parseInput.ts'
import { requestTimeLeft } from '../http/requestTimeLeft.ts'

const IdParams = z.object({
  id: z.string().regex(TENANT_ID, 'key-set ids are 1–64 letters, digits, _ . -, starting with a letter or digit'),
})

const idParamsSchema = {
  type: 'object',
  properties: { id: { type: 'string', pattern: TENANT_ID.source } },
  required: ['id'],
}

/** Upload, list and delete a tenant's evaluation keys (never a secret key). */
export async function keySetRoutes(app: FastifyInstance): Promise<void> {
  const { store, hub, config } = app.sealbox

  app.put(
    '/keysets/:id',
    {
      bodyLimit: config.MAX_KEYSET_BYTES,
      schema: {
        tags: ['keysets'],
        summary: 'Upload (or replace) a key set',
        description:
          'Body: a relinKeys or galoisKeys envelope, or a bundle of both (application/octet-stream). Secret keys are refused (SECRET_KEY_REFUSED). Keys for the server search parameters are loaded into SEAL before they are stored.',
        params: idParamsSchema,
        consumes: ['application/octet-stream'],
      },
    },
    async (request, reply) => {
      const { tenant } = request
      const { id } = parseInput(IdParams, request.params, 'params')
      const bytes = binaryBody(request)
      // Refuse what cannot fit before spending a worker on it (the store checks again atomically).
      const used = await store.usage(tenant.id)
      const previous = await store.get(tenant.id, id)
      const after = used - (previous?.bytes ?? 0) + bytes.length
      if (after > config.TENANT_QUOTA_BYTES) {
        throw new HeError(
          'QUOTA_EXCEEDED',
          `storing ${bytes.length} bytes would bring this tenant to ${after} bytes; the quota is ${config.TENANT_QUOTA_BYTES}`,
          { details: { quotaBytes: config.TENANT_QUOTA_BYTES, usedBytes: used } },
        )
      }
      const done = await hub.submit(
        tenant.id,
        { type: 'inspectKeys', bytes },
        { timeoutMs: requestTimeLeft(request), signal: clientGoneSignal(reply) },
      )
      const { facts, sha256 } = jobResult(request, done, 'keysInspected')
      const { record, created } = await request.timing.measure('store', () =>
        store.put(tenant.id, id, facts, bytes, sha256),
      )
      // The store decides new vs replaced under its lock (`previous` above may be stale).
      reply.status(created ? 201 : 200)
      return record
    },
  )

  app.get('/keysets', { schema: { tags: ['keysets'], summary: "List this tenant's key sets" } }, async (request) => {
    const { tenant } = request
    const keySets = await store.list(tenant.id)
    return {
      tenant: tenant.id,
      keySets,
      usage: {
        bytes: keySets.reduce((sum, record) => sum + record.bytes, 0),
        quotaBytes: config.TENANT_QUOTA_BYTES,
        keySets: keySets.length,
        maxKeySets: config.MAX_KEYSETS,
      },
    }
  })

  app.get(
    '/keysets/:id',
    { schema: { tags: ['keysets'], summary: 'One key set', params: idParamsSchema } },
    async (request) => {
      const { tenant } = request
      const { id } = parseInput(IdParams, request.params, 'params')
      const record = await store.get(tenant.id, id)
      // Another tenant's key set is "not found" too: ids do not leak across tenants.
      if (!record) throw new HeError('NOT_FOUND', `no key set "${id}"`)
      return record
    },
  )

  app.delete(
    '/keysets/:id',
    { schema: { tags: ['keysets'], summary: 'Delete a key set', params: idParamsSchema } },
    async (request, reply) => {
      const { tenant } = request
      const { id } = parseInput(IdParams, request.params, 'params')
      if (!(await store.delete(tenant.id, id))) throw new HeError('NOT_FOUND', `no key set "${id}"`)
      return reply.status(204).send()
    },
  )
}

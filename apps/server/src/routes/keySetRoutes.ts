import { HeError } from '@sealbox/he-core'
import {
  API_PREFIX,
  deleteKeySetRoute,
  getKeySetRoute,
  listKeySetsRoute,
  putKeySetRoute,
} from '@sealbox/he-core/client'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { binaryBody } from '../http/binaryBody.ts'
import { clientGoneSignal } from '../http/clientGoneSignal.ts'
import { jobClient } from '../http/jobClient.ts'
import { jobResult } from '../http/jobReply.ts'
import { requestTimeLeft } from '../http/requestTimeLeft.ts'
import { routeFromContract } from '../http/routeFromContract.ts'

/**
 * Upload, list and delete a tenant's evaluation keys (never a secret key). The upload and
 * the delete carry the quota plugin's route-level hooks for anonymous tenants' bytes.
 */
export async function keySetRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const { store, hub, config } = app.sealbox
  const { reserveUpload, settle } = app.anonymousSessions.keySetHooks

  app.route({
    ...routeFromContract(putKeySetRoute, API_PREFIX),
    bodyLimit: config.MAX_KEYSET_BYTES,
    ...(reserveUpload && { preHandler: reserveUpload }),
    ...(settle && { onResponse: settle }),
    handler: async (request, reply) => {
      const { tenant } = request
      const { id } = request.params
      const bytes = binaryBody(request)
      // Refuse what cannot fit before spending a worker on it (the store checks again atomically).
      // Uploads alone: the kernel forms kept beside them never refuse one.
      const keySets = await store.list(tenant.id)
      const used = keySets.reduce((sum, record) => sum + record.bytes, 0)
      const previous = keySets.find((record) => record.id === id)
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
        { type: 'inspectKeys', bytes, tenant: tenant.id },
        { timeoutMs: requestTimeLeft(request), signal: clientGoneSignal(reply), client: jobClient(request) },
      )
      const { facts, sha256 } = jobResult(request, done)
      // The kernel form the worker made is kept beside the upload: a store-tier miss copies it.
      const made = done.reply.fullFormKeys
      // Not for local-mode sessions: ANONYMOUS_STORAGE_BYTES bounds their uploads, which a
      // kernel form (2.4× a seeded upload at the defaults) would crowd out.
      const kernelForm =
        config.KEY_STORE_KERNEL_FORMS && tenant.kind !== 'anonymous' && made?.storeForm
          ? { form: made.storeForm, bytes: made.bytes }
          : undefined
      const { record, created, kernelFormKept } = await request.timing.measure('store', () =>
        store.put(tenant.id, id, facts, bytes, sha256, kernelForm),
      )
      if (kernelForm) app.sealbox.metrics.kernelFormWritten(kernelFormKept ? 'upload' : 'skipped')
      // The store decides new vs replaced under its lock (`previous` above may be stale).
      reply.status(created ? 201 : 200)
      return record
    },
  })

  app.route({
    ...routeFromContract(listKeySetsRoute, API_PREFIX),
    handler: async (request) => {
      const { tenant } = request
      const keySets = await store.list(tenant.id)
      return {
        tenant: tenant.id,
        keySets,
        usage: {
          // What the tenant stores: its uploads and the kernel forms kept beside them.
          bytes: await store.usage(tenant.id),
          quotaBytes: config.TENANT_QUOTA_BYTES,
          keySets: keySets.length,
          maxKeySets: config.MAX_KEYSETS,
        },
      }
    },
  })

  app.route({
    ...routeFromContract(getKeySetRoute, API_PREFIX),
    handler: async (request) => {
      const { tenant } = request
      const { id } = request.params
      const record = await store.get(tenant.id, id)
      // Another tenant's key set is "not found" too: ids do not leak across tenants.
      if (!record) throw new HeError('NOT_FOUND', `no key set "${id}"`)
      return record
    },
  })

  app.route({
    ...routeFromContract(deleteKeySetRoute, API_PREFIX),
    ...(settle && { onResponse: settle }),
    handler: async (request, reply) => {
      const { tenant } = request
      const { id } = request.params
      if (!(await store.delete(tenant.id, id))) throw new HeError('NOT_FOUND', `no key set "${id}"`)
      return reply.status(204).send(undefined)
    },
  })
}

import { HeError } from '@sealbox/he-core'
import {
  API_PREFIX,
  acceptsDroppedBits,
  SEALBOX_HEADERS,
  searchConfigRoute,
  searchRoute,
} from '@sealbox/he-core/client'
import { peekEnvelope, splitEnvelopes } from '@sealbox/he-core/envelope'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { resolveKeySet } from '../app/resolveKeySet.ts'
import { searchKeyNeeds } from '../app/searchKeyNeeds.ts'
import { binaryBody } from '../http/binaryBody.ts'
import { clientGoneSignal } from '../http/clientGoneSignal.ts'
import { executorOverride } from '../http/executorOverride.ts'
import { jobClient } from '../http/jobClient.ts'
import { jobResult } from '../http/jobReply.ts'
import { requestTimeLeft } from '../http/requestTimeLeft.ts'
import { routeFromContract } from '../http/routeFromContract.ts'

/** The search config, and encrypted search against the server's database. */
export async function searchRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const services = app.sealbox
  const { store, hub, config, metrics } = services

  app.route({
    ...routeFromContract(searchConfigRoute, API_PREFIX),
    config: { auth: false },
    handler: async () => {
      const search = services.search()
      return {
        ...search.config,
        configId: search.configId,
        fingerprint: search.fingerprint,
        database: search.database,
        ...(search.clustering ? { clustering: search.clustering } : {}),
        ...(search.shard ? { shard: search.shard } : {}),
      }
    },
  })

  app.route({
    ...routeFromContract(searchRoute, API_PREFIX),
    bodyLimit: config.MAX_REQUEST_BYTES,
    handler: async (request, reply) => {
      const { tenant } = request
      const { query } = request
      const search = services.search()
      const queries = splitEnvelopes(binaryBody(request), { max: config.MAX_QUERIES_PER_SEARCH })
      // Cheap header checks on the loop so obvious mistakes never queue; the worker verifies everything.
      const keySetIds = new Set<string>()
      for (const [i, bytes] of queries.entries()) {
        const header = peekEnvelope(bytes)
        if (header.kind !== 'bundle') {
          throw new HeError('ENVELOPE_KIND_MISMATCH', `query ${i}: expected a query bundle, got ${header.kind}`)
        }
        if (header.fingerprint !== search.fingerprint) {
          throw new HeError('PARAMS_MISMATCH', `query ${i} was made under other encryption parameters`, {
            details: { expected: search.fingerprint, found: header.fingerprint },
          })
        }
        if (header.keySetId) keySetIds.add(header.keySetId)
      }
      const keys = await resolveKeySet(store, tenant.id, query.keySet, searchKeyNeeds(search, keySetIds))
      const droppedBits = acceptsDroppedBits(request.headers)
      metrics.searchRequest(droppedBits)
      const done = await hub.submitSearch(
        tenant.id,
        // Only the Galois elements the queries use are loaded, whatever else the key set holds.
        {
          type: 'search',
          queries,
          // Only a client that says it restores dropped bits gets them: older ones refuse such blocks.
          ...(droppedBits ? { droppedBits } : {}),
          ...keys,
          ...(keys && search.galoisElements.length > 0
            ? { galoisElements: [...search.galoisElements], keyForm: search.keyForm }
            : {}),
        },
        {
          timeoutMs: requestTimeLeft(request),
          signal: clientGoneSignal(reply),
          client: jobClient(request),
          ...executorOverride(request),
        },
      )
      const result = jobResult(request, done)
      reply
        .type('application/octet-stream')
        .header(SEALBOX_HEADERS.executor, done.mode)
        .header(SEALBOX_HEADERS.cost, String(done.chargedUnits))
        .header(SEALBOX_HEADERS.queryMs, result.queryMs.map((ms) => ms.toFixed(2)).join(','))
      return Buffer.concat(result.responses)
    },
  })
}

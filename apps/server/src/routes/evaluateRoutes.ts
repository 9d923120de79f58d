import { HeError } from '@sealbox/he-core'
import {
  API_PREFIX,
  EVALUATE_MEDIA_TYPE,
  encodeEvaluateReply,
  evaluateRoute,
  SEALBOX_HEADERS,
} from '@sealbox/he-core/client'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { admitEvaluate } from '../app/admitEvaluate.ts'
import { parseEvaluateRequest } from '../app/parseEvaluateRequest.ts'
import { binaryBody, mediaType } from '../http/binaryBody.ts'
import { clientGoneSignal } from '../http/clientGoneSignal.ts'
import { executorOverride } from '../http/executorOverride.ts'
import { jobClient } from '../http/jobClient.ts'
import { jobResult } from '../http/jobReply.ts'
import { requestTimeLeft } from '../http/requestTimeLeft.ts'
import { routeFromContract } from '../http/routeFromContract.ts'

/** Runs an he-core program on encrypted inputs. */
export async function evaluateRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const { store, hub, config } = app.sealbox

  app.route({
    ...routeFromContract(evaluateRoute, API_PREFIX),
    bodyLimit: config.MAX_REQUEST_BYTES,
    // After the API's auth hook and before the body is read: a JSON body (the old form) is
    // refused without buffering it.
    onRequest: async (request) => {
      if (mediaType(request) !== EVALUATE_MEDIA_TYPE) {
        throw new HeError(
          'UNSUPPORTED_MEDIA_TYPE',
          `send the evaluate request as ${EVALUATE_MEDIA_TYPE} (a JSON header, then the input envelopes; got ${mediaType(request) || 'no content type'}): SealboxClient.evaluate and encodeEvaluateRequest in @sealbox/he-core/client write it`,
        )
      }
    },
    handler: async (request, reply) => {
      const { tenant, query } = request
      // Framing only on the loop: each envelope is verified (checksum and all) in the worker.
      const parsed = onLoop(request, 'decode', () => parseEvaluateRequest(binaryBody(request), query.keySet, config))
      const admitted = await admitEvaluate({ store, config }, tenant.id, parsed)
      const done = await hub.submit(tenant.id, admitted.job, {
        timeoutMs: requestTimeLeft(request),
        signal: clientGoneSignal(reply),
        params: admitted.params,
        cost: admitted.cost.units,
        peakHeapBytes: admitted.cost.peakHeapBytes,
        client: jobClient(request),
        ...executorOverride(request),
      })
      const result = jobResult(request, done)
      const bytes = onLoop(request, 'encode', () =>
        encodeEvaluateReply({ outputs: result.outputs, steps: result.steps }),
      )
      reply
        .type(EVALUATE_MEDIA_TYPE)
        .header(SEALBOX_HEADERS.executor, done.mode)
        .header(SEALBOX_HEADERS.cost, String(done.chargedUnits))
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    },
  })
}

/** Runs synchronous work on the event loop and books its time to a Server-Timing phase. */
function onLoop<T>(request: FastifyRequest, phase: 'decode' | 'encode', work: () => T): T {
  const started = performance.now()
  try {
    return work()
  } finally {
    request.timing.add(phase, performance.now() - started)
  }
}

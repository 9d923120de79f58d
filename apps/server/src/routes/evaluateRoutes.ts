import { analyzeProgram, HeError, missingProgramKeys, type ProgramAnalysis, parseParams } from '@sealbox/he-core'
import {
  API_PREFIX,
  decodeEvaluateRequest,
  EVALUATE_MEDIA_TYPE,
  encodeEvaluateReply,
  evaluateRoute,
  SEALBOX_HEADERS,
} from '@sealbox/he-core/client'
import { peekEnvelope } from '@sealbox/he-core/envelope'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { admitProgram } from '../app/programAdmission.ts'
import { programKeysToLoad } from '../app/programKeysToLoad.ts'
import type { KeySetNeeds } from '../app/resolveKeySet.ts'
import { resolveKeySet } from '../app/resolveKeySet.ts'
import { binaryBody, mediaType } from '../http/binaryBody.ts'
import { clientGoneSignal } from '../http/clientGoneSignal.ts'
import { executorOverride } from '../http/executorOverride.ts'
import { jobClient } from '../http/jobClient.ts'
import { jobResult } from '../http/jobReply.ts'
import { requestTimeLeft } from '../http/requestTimeLeft.ts'
import { routeFromContract } from '../http/routeFromContract.ts'
import type { KeySetRecord } from '../store/KeyStore.ts'

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
      const decodeStarted = performance.now()
      // Framing only on the loop: each envelope is verified (checksum and all) in the worker.
      const body = decodeEvaluateRequest(binaryBody(request))
      // `?keySet=` works too, so a proxy can route by key set without reading the body (deploy/nginx).
      if (query.keySet !== undefined && body.keySet !== undefined && query.keySet !== body.keySet) {
        throw new HeError(
          'INVALID_INPUT',
          `keySet "${query.keySet}" in the URL and "${body.keySet}" in the body differ`,
        )
      }
      const params = parseParams(body.params)
      if (params.polyModulusDegree > config.MAX_POLY_DEGREE) {
        throw new HeError(
          'LIMIT_EXCEEDED',
          `n=${params.polyModulusDegree} is above this server's limit of ${config.MAX_POLY_DEGREE} (MAX_POLY_DEGREE)`,
          { details: { limit: config.MAX_POLY_DEGREE } },
        )
      }
      // Static analysis on the loop (no SEAL): a bad program never reaches a worker.
      const analysis = analyzeProgram(body.program, params, { limits: { maxSteps: config.MAX_PROGRAM_STEPS } })
      const envelopeKeySetIds = new Set(
        Object.values(body.inputs).flatMap((bytes) => peekEnvelope(bytes).keySetId ?? []),
      )
      request.timing.add('decode', performance.now() - decodeStarted)
      let record: KeySetRecord | undefined
      const keys = await resolveKeySet(
        store,
        tenant.id,
        body.keySet ?? query.keySet,
        programKeyNeeds(analysis, envelopeKeySetIds, (found) => {
          record = found
        }),
      )
      // Only the keys the program uses are loaded (and cached, and priced when cold), never
      // the whole set: a key set of 700 Galois elements costs a rotateRows(1) one of them.
      const toLoad = record && keys ? programKeysToLoad(analysis, record) : undefined
      const jobKeys =
        !keys || !toLoad
          ? (keys ?? {})
          : toLoad.load === 'none'
            ? { keySetId: keys.keySetId }
            : toLoad.load === 'part'
              ? { ...keys, keyUse: toLoad.use }
              : keys
      // Priced with the keys it will run with and refused above the per-job heap bound, before it queues.
      const cost = admitProgram(analysis, params, record, config, toLoad?.use)
      const done = await hub.submit(
        tenant.id,
        { type: 'evaluate', params: body.params, program: body.program, inputs: body.inputs, ...jobKeys },
        {
          timeoutMs: requestTimeLeft(request),
          signal: clientGoneSignal(reply),
          cost: cost.units,
          peakHeapBytes: cost.peakHeapBytes,
          client: jobClient(request),
          ...executorOverride(request),
        },
      )
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

/** What a program needs of a key set: the relinearization and Galois keys its analysis lists. */
function programKeyNeeds(
  analysis: ProgramAnalysis,
  envelopeKeySetIds: Iterable<string>,
  onRecord: (record: KeySetRecord) => void,
): KeySetNeeds {
  const keyGenSteps = () => [...analysis.keyGenSteps].sort((a, b) => a - b)
  return {
    envelopeKeySetIds,
    envelopes: 'the inputs',
    missingFrom(record: KeySetRecord) {
      onRecord(record)
      const elements = new Set(record.galoisElements)
      const missing = missingProgramKeys(analysis, {
        relinKeys: record.kinds.includes('relinKeys') ? { hasKey: (power) => power === 2 } : undefined,
        galoisKeys: record.kinds.includes('galoisKeys') ? { hasKey: (element) => elements.has(element) } : undefined,
      })
      if (!missing[0]) return undefined
      // Every missing key at once, before any work: the client can make exactly those.
      return new HeError('MISSING_KEY', `key set "${record.id}": ${missing.map((m) => m.message).join('; ')}`, {
        details: {
          missingSteps: [...new Set(missing.flatMap((m) => m.steps))].sort((a, b) => a - b),
          needsRelinKeys: missing.some((m) => m.key === 'relin'),
        },
      })
    },
    withoutKeySet() {
      if (!analysis.needsRelinKeys && analysis.galoisElements.length === 0) return undefined
      const what = [
        ...(analysis.needsRelinKeys ? ['relinearization keys'] : []),
        ...(analysis.galoisElements.length > 0
          ? [`Galois keys for steps ${keyGenSteps().join(', ')} (0: the column rotation)`]
          : []),
      ].join(' and ')
      return new HeError('MISSING_KEY', `this program needs ${what}: upload a key set and pass "keySet"`, {
        details: { missingSteps: keyGenSteps(), needsRelinKeys: analysis.needsRelinKeys },
      })
    },
  }
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

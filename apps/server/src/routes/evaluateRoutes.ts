import {
  analyzeProgram,
  base64ToBytes,
  bytesToBase64,
  HeError,
  missingProgramKeys,
  parseParams,
} from '@sealbox/he-core'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { TENANT_ID } from '../config/ServerConfig.ts'
import { executorOverride } from '../http/executorOverride.ts'
import { jobResult } from '../http/jobReply.ts'
import { clientGoneSignal, mediaType, parseInput } from '../http/parseInput.ts'
import { requestTimeLeft } from '../http/requestTimeLeft.ts'

const MAX_INPUTS = 64

const EvaluateBody = z
  .object({
    /** An he-core ParamsSpec (scheme, polyModulusDegree, coeffModulus, plainModulus, …). */
    params: z.record(z.string(), z.unknown()),
    /** An he-core ProgramSpec. */
    program: z.record(z.string(), z.unknown()),
    /** Input envelopes (base64) by program input name. */
    inputs: z
      .record(z.string().max(64), z.string().min(1))
      .refine((inputs) => Object.keys(inputs).length <= MAX_INPUTS, {
        message: `at most ${MAX_INPUTS} inputs`,
      }),
    /** The key set holding the relinearization / Galois keys the program needs. */
    keySet: z.string().regex(TENANT_ID, 'keySet must be a key-set id').optional(),
  })
  .strict()

const EvaluateQueryString = z
  .object({ keySet: z.string().regex(TENANT_ID, 'keySet must be a key-set id').optional() })
  .strict()

/** Runs an he-core program on encrypted inputs. */
export async function evaluateRoutes(app: FastifyInstance): Promise<void> {
  const { store, hub, config } = app.sealbox
  const parseJson = app.getDefaultJsonParser('error', 'error')
  // The body's JSON.parse runs on the event loop: booked as `decode` so it shows in Server-Timing.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const started = performance.now()
    parseJson(request, String(body), (error, value) => {
      request.timing.add('decode', performance.now() - started)
      done(error, value)
    })
  })

  app.post(
    '/evaluate',
    {
      bodyLimit: config.MAX_REQUEST_BYTES,
      schema: {
        tags: ['evaluate'],
        summary: 'Run an HE program on encrypted inputs',
        description:
          'Body (application/json): `{ params, program, inputs: { name: base64 envelope }, keySet? }`. The program is analysed before any work: unknown ops, cycles, too many steps, n above MAX_POLY_DEGREE and missing keys are refused up front. Response: `{ outputs: { name: base64 envelope }, steps }`.',
        consumes: ['application/json'],
      },
    },
    async (request, reply) => {
      const { tenant } = request
      const decodeStarted = performance.now()
      if (mediaType(request) !== 'application/json') {
        throw new HeError('UNSUPPORTED_MEDIA_TYPE', 'send the program as application/json')
      }
      const body = parseInput(EvaluateBody, request.body, 'body')
      // `?keySet=` works too, so a proxy can route by key set without reading the body (deploy/nginx).
      const query = parseInput(EvaluateQueryString, request.query, 'query')
      if (query.keySet !== undefined && body.keySet !== undefined && query.keySet !== body.keySet) {
        throw new HeError(
          'INVALID_INPUT',
          `keySet "${query.keySet}" in the URL and "${body.keySet}" in the body differ`,
        )
      }
      const keySet = body.keySet ?? query.keySet
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
      const needsKeys = analysis.needsRelinKeys || analysis.galoisElements.length > 0
      request.timing.add('decode', performance.now() - decodeStarted)
      let keys: { ref: { tenant: string; id: string; sha256: string; bytes: number }; keySetId: string } | undefined
      if (keySet !== undefined) {
        const record = await store.get(tenant.id, keySet)
        if (!record) throw new HeError('NOT_FOUND', `no key set "${keySet}"`)
        const elements = new Set(record.galoisElements)
        const missing = missingProgramKeys(analysis, {
          relinKeys: record.kinds.includes('relinKeys') ? { hasKey: (power) => power === 2 } : undefined,
          galoisKeys: record.kinds.includes('galoisKeys') ? { hasKey: (element) => elements.has(element) } : undefined,
        })
        if (missing[0]) {
          // Every missing key at once, before any work: the client can make exactly those.
          throw new HeError('MISSING_KEY', `key set "${record.id}": ${missing.map((m) => m.message).join('; ')}`, {
            details: {
              missingSteps: [...new Set(missing.flatMap((m) => m.steps))].sort((a, b) => a - b),
              needsRelinKeys: missing.some((m) => m.key === 'relin'),
            },
          })
        }
        keys = {
          ref: { tenant: tenant.id, id: record.id, sha256: record.sha256, bytes: record.bytes },
          keySetId: record.keySetId,
        }
      } else if (needsKeys) {
        const what = [
          ...(analysis.needsRelinKeys ? ['relinearization keys'] : []),
          ...(analysis.galoisElements.length > 0
            ? [
                `Galois keys for steps ${[...analysis.keyGenSteps].sort((a, b) => a - b).join(', ')} (0: the column rotation)`,
              ]
            : []),
        ].join(' and ')
        throw new HeError('MISSING_KEY', `this program needs ${what}: upload a key set and pass "keySet"`, {
          details: {
            missingSteps: [...analysis.keyGenSteps].sort((a, b) => a - b),
            needsRelinKeys: analysis.needsRelinKeys,
          },
        })
      }
      const inputs = onLoop(request, 'decode', () => {
        const decoded: Record<string, Uint8Array> = {}
        for (const [name, text] of Object.entries(body.inputs)) decoded[name] = base64ToBytes(text)
        return decoded
      })
      const done = await hub.submit(
        tenant.id,
        {
          type: 'evaluate',
          params: body.params,
          program: body.program,
          inputs,
          ...(keys ? { keys: keys.ref, keySetId: keys.keySetId } : {}),
        },
        {
          timeoutMs: requestTimeLeft(request),
          signal: clientGoneSignal(reply),
          cost: analysis.cost.units,
          ...executorOverride(request),
        },
      )
      const result = jobResult(request, done, 'evaluateResult')
      reply.header('x-sealbox-executor', done.mode)
      const text = onLoop(request, 'encode', () => {
        const outputs: Record<string, string> = {}
        for (const [name, bytes] of Object.entries(result.outputs)) outputs[name] = bytesToBase64(bytes)
        return JSON.stringify({ outputs, ...(result.report as Record<string, unknown>) })
      })
      return reply.type('application/json').send(text)
    },
  )
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

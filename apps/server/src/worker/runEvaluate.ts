import { acquireHeContext, analyzeProgram, HeError, parseParams, runAnalyzedProgram, withScope } from '@sealbox/he-core'
import { decodeEnvelope, loadSealObject, saveSealObject } from '@sealbox/he-core/envelope'
import type { Ciphertext, Plaintext } from 'node-seal/throws'
import type { EvaluateJob, JobResult } from '../executor/jobMessages.ts'
import { acquireKeys } from './acquireKeys.ts'
import type { JobContext, PhaseClock } from './PhaseClock.ts'

/** Polynomials of a program's ciphertext inputs: fresh encryptions (relinearized results re-sent are too). */
const INPUT_CIPHERTEXT_SIZE = 2

/**
 * Runs an he-core program: builds (or reuses) the context of the request's
 * parameters, loads the inputs and the tenant's keys, runs every step with
 * he-core's evaluator, and saves the outputs as envelopes. Everything made here is
 * owned by one scope and deleted on success and on failure.
 */
export async function runEvaluate(job: JobContext, request: EvaluateJob, clock: PhaseClock): Promise<JobResult> {
  const params = parseParams(request.params)
  if (params.polyModulusDegree > job.setup.maxPolyDegree) {
    throw new HeError(
      'LIMIT_EXCEEDED',
      `n=${params.polyModulusDegree} is above this server's limit of ${job.setup.maxPolyDegree} (MAX_POLY_DEGREE)`,
    )
  }
  // The one parse of the program in this thread: what crossed the thread boundary is
  // validated here, and the runner is handed this analysis instead of parsing it again.
  const analysis = analyzeProgram(request.program, params, { limits: { maxSteps: job.setup.maxProgramSteps } })
  const kinds = new Map(analysis.program.inputs.map((input) => [input.name, input.kind]))
  // A lease, not a pinned context: callers choose these parameters, so the worker keeps
  // only as many contexts as the shared cache's byte budget allows (idle ones are evicted).
  using context = await clock.timeAsync('deserialize', () => acquireHeContext(params))
  const ctx = context.ctx
  // Only the keys the program uses (the route names them from the record): never the whole set.
  const lease = request.keys
    ? await acquireKeys(job, ctx, request.keys, clock, request.keyBytes, request.keyUse)
    : undefined
  try {
    return withScope((scope) => {
      const inputs: Record<string, Ciphertext | Plaintext> = {}
      let keySetId = request.keySetId
      clock.time('deserialize', () => {
        for (const [name, bytes] of Object.entries(request.inputs)) {
          const kind = kinds.get(name)
          if (kind === undefined) {
            throw new HeError('INVALID_INPUT', `input '${name}' is not declared by the program`, {
              details: { input: name },
            })
          }
          if (kind === 'plaintext') {
            const plaintext = scope.track(new ctx.seal.Plaintext())
            loadSealObject(plaintext, ctx, bytes, { kind: 'plaintext', refuseSecretKey: true })
            inputs[name] = plaintext
            continue
          }
          // Every ciphertext must belong to one secret key, and to the keys' when keys are used.
          const envelope = decodeEnvelope(bytes, {
            kind: 'ciphertext',
            fingerprint: ctx.fingerprint,
            refuseSecretKey: true,
            ...(keySetId ? { keySetId } : {}),
          })
          keySetId ??= envelope.keySetId
          const ciphertext = scope.track(new ctx.seal.Ciphertext())
          // Inputs are fresh (2 polynomials): a 16-polynomial one is refused before it is inflated.
          loadSealObject(
            ciphertext,
            ctx,
            envelope,
            { kind: 'ciphertext' },
            { maxCiphertextSize: INPUT_CIPHERTEXT_SIZE },
          )
          inputs[name] = ciphertext
        }
      })
      const result = clock.time('compute', () =>
        runAnalyzedProgram(ctx, analysis, {
          inputs,
          relinKeys: lease?.value.relinKeys,
          galoisKeys: lease?.value.galoisKeys,
        }),
      )
      for (const output of Object.values(result.outputs)) scope.track(output)
      const outputs = clock.time('serialize', () => {
        const saved: Record<string, Uint8Array> = {}
        for (const [name, value] of Object.entries(result.outputs)) {
          saved[name] =
            value instanceof ctx.seal.Ciphertext
              ? saveSealObject(value, {
                  kind: 'ciphertext',
                  fingerprint: ctx.fingerprint,
                  compression: 'zstd',
                  ...(keySetId ? { keySetId } : {}),
                })
              : saveSealObject(value, { kind: 'plaintext', fingerprint: ctx.fingerprint, compression: 'zstd' })
        }
        return saved
      })
      return { type: 'evaluateResult', outputs, steps: result.steps }
    })
  } finally {
    lease?.release()
  }
}

import {
  decodeBatch,
  decrypt,
  encodeBatch,
  encryptSymmetric,
  exportEvaluationKeys,
  getHeContext,
  KeySet,
  type ProgramInput,
  runProgram,
  runProgramPlain,
  withScope,
} from '@sealbox/he-core'
import { type EvaluateCall, encodeEvaluateRequest } from '@sealbox/he-core/client'
import { decodeEnvelope, loadSealObject, saveSealObject } from '@sealbox/he-core/envelope'
import type { Ciphertext } from 'node-seal/throws'
import type { PreparedWorkload } from './PreparedWorkload.ts'

/** BFV at n=4096 with a 20-bit batching plain modulus (the server e2e suite's parameters). */
export const PROGRAM_PARAMS = { scheme: 'bfv', polyModulusDegree: 4096, plainModulus: { batchingBits: 20 } } as const

/** multiply → relinearize → rotate: needs relinearization keys and the Galois key for step 1. */
export const BENCH_PROGRAM: ProgramInput = {
  version: 1,
  inputs: [
    { name: 'x', kind: 'ciphertext' },
    { name: 'y', kind: 'ciphertext' },
  ],
  steps: [
    { op: 'multiply', a: 'x', b: 'y', out: 'xy' },
    { op: 'relinearize', a: 'xy', out: 'r' },
    { op: 'rotateRows', a: 'r', steps: 1, out: 'out' },
  ],
  outputs: ['out'],
}

const KEY_SET = 'program'
const SLOTS = 256

/**
 * The program workload: `POST /api/v1/evaluate` (SealboxClient.evaluate) with two
 * ciphertexts encrypted once here (zstd envelopes) and the keys uploaded once per
 * server. The Direct row runs the worker's job in this process: check and load the
 * input envelopes, `runProgram`, save the output.
 */
export async function prepareProgramWorkload(): Promise<PreparedWorkload> {
  const ctx = await getHeContext(PROGRAM_PARAMS)
  const keys = KeySet.generate(ctx, { relin: true, galois: { steps: [1] } })
  const x = Array.from({ length: SLOTS }, (_, i) => i - 100)
  const y = Array.from({ length: SLOTS }, (_, i) => 3 * i + 1)
  const save = (ciphertext: Ciphertext) =>
    saveSealObject(ciphertext, {
      kind: 'ciphertext',
      fingerprint: ctx.fingerprint,
      keySetId: keys.id,
      compression: 'zstd',
    })
  const inputs = withScope((scope) => ({
    x: save(encryptSymmetric(keys, encodeBatch(ctx, x, scope), scope)),
    y: save(encryptSymmetric(keys, encodeBatch(ctx, y, scope), scope)),
  }))
  const expected = (
    runProgramPlain(BENCH_PROGRAM, { scheme: 'bfv', polyModulusDegree: 4096, plainModulus: ctx.plainModulus }, { x, y })
      .out as bigint[]
  ).map(String)
  const keyBytes = exportEvaluationKeys(keys)
  const request: EvaluateCall = { params: PROGRAM_PARAMS, program: BENCH_PROGRAM, inputs }
  // SealboxClient.evaluate sends the key set in the URL, the rest as this body.
  const call: EvaluateCall = { ...request, keySet: KEY_SET }

  return {
    workload: 'program',
    title: `Program (multiply → relinearize → rotate, BFV n=${PROGRAM_PARAMS.polyModulusDegree})`,
    facts: {
      params: `BFV n=${PROGRAM_PARAMS.polyModulusDegree}, t = Batching(n, 20)`,
      program: 'multiply(x, y) → relinearize → rotateRows(1)',
      inputBytes: inputs.x.byteLength + inputs.y.byteLength,
      requestBytes: encodeEvaluateRequest(request).byteLength,
      keyBytes: keyBytes.byteLength,
    },
    calls: { route: 'evaluate', calls: [call] },
    keySet: { id: KEY_SET, bytes: keyBytes },
    verify(_index, answer) {
      const slots = withScope((scope) => {
        const ciphertext = scope.track(new ctx.seal.Ciphertext())
        loadSealObject(ciphertext, ctx, answer, { kind: 'ciphertext', keySetId: keys.id })
        return decodeBatch(ctx, decrypt(keys, ciphertext, scope))
      })
      return slots.length === expected.length && slots.every((value, i) => String(value) === expected[i])
    },
    runDirect() {
      return withScope((scope) => {
        const started = performance.now()
        const loaded: Record<string, Ciphertext> = {}
        for (const [name, bytes] of Object.entries(inputs)) {
          const envelope = decodeEnvelope(bytes, {
            kind: 'ciphertext',
            fingerprint: ctx.fingerprint,
            refuseSecretKey: true,
            keySetId: keys.id,
          })
          const ciphertext = scope.track(new ctx.seal.Ciphertext())
          loadSealObject(ciphertext, ctx, envelope, { kind: 'ciphertext' })
          loaded[name] = ciphertext
        }
        const computeStart = performance.now()
        const result = runProgram(ctx, BENCH_PROGRAM, {
          inputs: loaded,
          relinKeys: keys.relinKeys,
          galoisKeys: keys.galoisKeys,
        })
        const computeMs = performance.now() - computeStart
        for (const output of Object.values(result.outputs)) scope.track(output)
        save(result.outputs.out as Ciphertext)
        return { computeMs, totalMs: performance.now() - started }
      })
    },
    [Symbol.dispose]() {
      keys.dispose()
    },
  }
}

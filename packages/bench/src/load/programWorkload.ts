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

/** BFV at n=8192 with a 20-bit batching plain modulus: the heavy program's parameters. */
export const HEAVY_PROGRAM_PARAMS = {
  scheme: 'bfv',
  polyModulusDegree: 8192,
  plainModulus: { batchingBits: 20 },
} as const

/**
 * A program of realistic cost: the inner product of two 4096-slot vectors (multiply,
 * relinearize, then 12 row rotations and a column rotation to sum the slots), some
 * 70–100× the small program's work. With it the isolation table shows what a CPU-heavy
 * request does to the event loop, beside the 2 ms search.
 */
export const HEAVY_BENCH_PROGRAM: ProgramInput = {
  version: 1,
  inputs: [
    { name: 'x', kind: 'ciphertext' },
    { name: 'y', kind: 'ciphertext' },
  ],
  steps: [{ op: 'innerProduct', a: 'x', b: 'y', out: 'out' }],
  outputs: ['out'],
}

/** What differs between the two program workloads. */
interface ProgramWorkloadSpec {
  workload: 'program' | 'program-heavy'
  params: typeof PROGRAM_PARAMS | typeof HEAVY_PROGRAM_PARAMS
  program: ProgramInput
  /** Galois steps of the key set (rotations by these steps; 0 is the column rotation). */
  galoisSteps: number[]
  /** Slots filled in each input. */
  slots: number
  /** The program in words, for the report. */
  text: string
}

const SMALL: ProgramWorkloadSpec = {
  workload: 'program',
  params: PROGRAM_PARAMS,
  program: BENCH_PROGRAM,
  galoisSteps: [1],
  slots: 256,
  text: 'multiply(x, y) → relinearize → rotateRows(1)',
}

const HEAVY: ProgramWorkloadSpec = {
  workload: 'program-heavy',
  params: HEAVY_PROGRAM_PARAMS,
  program: HEAVY_BENCH_PROGRAM,
  // sumElements rotates the rows by n/4, …, 2, 1, then swaps them (the column rotation).
  galoisSteps: [0, ...Array.from({ length: Math.log2(HEAVY_PROGRAM_PARAMS.polyModulusDegree / 2) }, (_, i) => 2 ** i)],
  slots: HEAVY_PROGRAM_PARAMS.polyModulusDegree / 2,
  text: 'innerProduct(x, y): multiply → relinearize → 12 row rotations and a column rotation, each added',
}

/** The small program workload (`program`). */
export function prepareProgramWorkload(): Promise<PreparedWorkload> {
  return prepareProgram(SMALL)
}

/** The heavy program workload (`program-heavy`). */
export function prepareHeavyProgramWorkload(): Promise<PreparedWorkload> {
  return prepareProgram(HEAVY)
}

/**
 * A program workload: `POST /api/v1/evaluate` (SealboxClient.evaluate) with two
 * ciphertexts encrypted once here (zstd envelopes) and the keys uploaded once per
 * server. The Direct row runs the worker's job in this process: check and load the
 * input envelopes, `runProgram`, save the output.
 */
async function prepareProgram(spec: ProgramWorkloadSpec): Promise<PreparedWorkload> {
  const { params, program } = spec
  const KEY_SET = spec.workload
  const ctx = await getHeContext(params)
  const keys = KeySet.generate(ctx, { relin: true, galois: { steps: spec.galoisSteps } })
  const x = Array.from({ length: spec.slots }, (_, i) => (i % 512) - 100)
  const y = Array.from({ length: spec.slots }, (_, i) => 3 * (i % 512) + 1)
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
    runProgramPlain(
      program,
      { scheme: 'bfv', polyModulusDegree: params.polyModulusDegree, plainModulus: ctx.plainModulus },
      { x, y },
    ).out as bigint[]
  ).map(String)
  const keyBytes = exportEvaluationKeys(keys)
  const request: EvaluateCall = { params, program, inputs }
  // SealboxClient.evaluate sends the key set in the URL, the rest as this body.
  const call: EvaluateCall = { ...request, keySet: KEY_SET }

  return {
    workload: spec.workload,
    title:
      spec.workload === 'program'
        ? `Program (multiply → relinearize → rotate, BFV n=${params.polyModulusDegree})`
        : `Heavy program (inner product of ${spec.slots} slots, BFV n=${params.polyModulusDegree})`,
    facts: {
      params: `BFV n=${params.polyModulusDegree}, t = Batching(n, 20)`,
      program: spec.text,
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
        const result = runProgram(ctx, program, {
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

import {
  decodeBatch,
  decrypt,
  encodeBatch,
  encryptSymmetric,
  exportEvaluationKeys,
  getHeContext,
  KeySet,
  type ProgramInput,
  runProgramPlain,
  withScope,
} from '@sealbox/he-core'
import { SERVER_EXECUTOR_MODES } from '@sealbox/he-core/client'
import { loadSealObject, saveSealObject } from '@sealbox/he-core/envelope'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorOf, raw, startServer, type TestServer } from './harness.ts'

const params = { scheme: 'bfv', polyModulusDegree: 4096, plainModulus: { batchingBits: 20 } } as const

/** multiply → relinearize → rotate → add, plus a plaintext: the keys it needs are relin + Galois step 1. */
const program: ProgramInput = {
  version: 1,
  inputs: [
    { name: 'x', kind: 'ciphertext' },
    { name: 'y', kind: 'ciphertext' },
    { name: 'p', kind: 'plaintext' },
  ],
  steps: [
    { op: 'multiply', a: 'x', b: 'y', out: 'xy' },
    { op: 'relinearize', a: 'xy', out: 'r' },
    { op: 'rotateRows', a: 'r', steps: 1, out: 'rot' },
    { op: 'add', a: 'rot', b: 'x', out: 's' },
    { op: 'addPlain', a: 's', b: 'p', out: 'out' },
  ],
  outputs: ['out', 'r'],
}

const MODES = SERVER_EXECUTOR_MODES

describe('POST /api/v1/evaluate', () => {
  const servers = {} as Record<(typeof MODES)[number], TestServer>
  let server: TestServer
  beforeAll(async () => {
    for (const mode of MODES) servers[mode] = await startServer({ EXECUTOR: mode })
    server = servers.pool
  })
  afterAll(async () => {
    for (const running of Object.values(servers)) await running.close()
  })

  // The binary body and the typed step report cross a thread (pool), a process socket
  // (process) or nothing (inline): the same answer in every executor.
  it.each(MODES)(
    '%s: runs a multi-step program (multiply, relinearize, rotate, add) on encrypted inputs',
    async (mode) => {
      const ctx = await getHeContext(params)
      using keys = KeySet.generate(ctx, { relin: true, galois: { steps: [1] } })
      const client = await servers[mode].tenant()
      await client.putKeySet('program-keys', exportEvaluationKeys(keys))
      const x = Array.from({ length: 64 }, (_, i) => i - 20)
      const y = Array.from({ length: 64 }, (_, i) => 3 * i + 1)
      const p = Array.from({ length: 64 }, (_, i) => 1000 - i)
      const inputs = withScope((scope) => ({
        x: saveSealObject(encryptSymmetric(keys, encodeBatch(ctx, x, scope), scope), {
          kind: 'ciphertext',
          fingerprint: ctx.fingerprint,
          keySetId: keys.id,
          compression: 'zstd',
        }),
        y: saveSealObject(encryptSymmetric(keys, encodeBatch(ctx, y, scope), scope), {
          kind: 'ciphertext',
          fingerprint: ctx.fingerprint,
          keySetId: keys.id,
          compression: 'zstd',
        }),
        p: saveSealObject(encodeBatch(ctx, p, scope), {
          kind: 'plaintext',
          fingerprint: ctx.fingerprint,
          compression: 'zstd',
        }),
      }))
      const result = await client.evaluate({ params, program, inputs, keySet: 'program-keys' })
      expect(result.executor).toBe(mode)
      expect(Object.keys(result.outputs).sort()).toEqual(['out', 'r'])
      expect(result.steps).toHaveLength(5)
      // The step reports arrive typed and checked against their schema (absent fields are absent).
      expect(result.steps[0]).toMatchObject({ index: 0, op: 'multiply', out: 'xy', kind: 'ciphertext', size: 3 })
      expect(result.steps[1]).toMatchObject({ op: 'relinearize', size: 2 })
      expect(result.steps.every((step) => step.noiseBudget === undefined && step.timeMs >= 0)).toBe(true)
      expect(result.timing.compute).toBeGreaterThan(0)
      const expected = runProgramPlain(
        program,
        { scheme: 'bfv', polyModulusDegree: 4096, plainModulus: ctx.plainModulus },
        { x, y, p },
      )
      for (const name of ['out', 'r']) {
        const slots = withScope((scope) => {
          const ciphertext = scope.track(new ctx.seal.Ciphertext())
          loadSealObject(ciphertext, ctx, result.outputs[name] as Uint8Array, { kind: 'ciphertext', keySetId: keys.id })
          return decodeBatch(ctx, decrypt(keys, ciphertext, scope))
        })
        expect(slots.map(String), name).toEqual((expected[name] as bigint[]).map(String))
      }
    },
  )

  it('refuses a program whose keys are missing before any work is queued', async () => {
    const ctx = await getHeContext(params)
    using keys = KeySet.generate(ctx, { relin: true })
    const client = await server.tenant()
    await client.putKeySet('relin-only', exportEvaluationKeys(keys))
    const error = await errorOf(client.evaluate({ params, program, inputs: {}, keySet: 'relin-only' }))
    expect(error.code).toBe('MISSING_KEY')
    expect(error.message).toMatch(/rotation by 1/)
    expect((await errorOf(client.evaluate({ params, program, inputs: {} }))).code).toBe('MISSING_KEY')
  })

  it('refuses a JSON body (the old form) with 415 and says how to send it', async () => {
    const client = await server.tenant()
    const json = await raw(`${server.url}/api/v1/evaluate`, {
      method: 'POST',
      token: client.token as string,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ params, program, inputs: {} }),
    })
    expect([json.status, json.json.error?.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE'])
    expect(json.json.error?.message).toMatch(/application\/octet-stream.*SealboxClient\.evaluate/)
  })
})

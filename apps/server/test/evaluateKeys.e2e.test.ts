import {
  encodeBatch,
  encryptSymmetric,
  exportEvaluationKeys,
  getHeContext,
  KeySet,
  type ProgramInput,
  withScope,
} from '@sealbox/he-core'
import { encodeEvaluateRequest } from '@sealbox/he-core/client'
import { saveSealObject } from '@sealbox/he-core/envelope'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorOf, raw, startServer, type TestServer } from './harness.ts'

/*
 * "Ask for less": the evaluate API derives the keys a program needs from the program
 * itself and, before any work, names every missing one (Galois steps, relinearization),
 * so a client can make exactly those. `?keySet=` in the URL lets a proxy route by key set.
 */

const params = { scheme: 'bfv', polyModulusDegree: 4096, plainModulus: { batchingBits: 20 } } as const
const program: ProgramInput = {
  version: 1,
  inputs: [
    { name: 'x', kind: 'ciphertext' },
    { name: 'y', kind: 'ciphertext' },
  ],
  steps: [
    { op: 'multiply', a: 'x', b: 'y', out: 'xy' },
    { op: 'relinearize', a: 'xy', out: 'r' },
    { op: 'rotateRows', a: 'r', steps: 1, out: 'r1' },
    { op: 'rotateRows', a: 'r1', steps: 3, out: 'r3' },
    { op: 'rotateColumns', a: 'r3', out: 'out' },
  ],
  outputs: ['out'],
}

describe('evaluate: keys derived from the program', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer({ EXECUTOR: 'pool', WORKERS: 1 })
  })
  afterAll(async () => {
    await server.close()
  })

  it('names every Galois step and the relinearization keys a program needs when no key set is given', async () => {
    const client = await server.tenant()
    const error = await errorOf(client.evaluate({ params, program, inputs: {} }))
    expect(error.code).toBe('MISSING_KEY')
    expect(error.message).toMatch(/relinearization keys and Galois keys for steps 0, 1, 3/)
    expect(error.details?.server).toMatchObject({ missingSteps: [0, 1, 3], needsRelinKeys: true })
  })

  it('lists every key the given key set lacks, before any work', async () => {
    const ctx = await getHeContext(params)
    using keys = KeySet.generate(ctx, { galois: { steps: [1] } })
    const client = await server.tenant()
    await client.putKeySet('step-one', exportEvaluationKeys(keys))
    const error = await errorOf(client.evaluate({ params, program, inputs: {}, keySet: 'step-one' }))
    expect(error.code).toBe('MISSING_KEY')
    expect(error.message).toMatch(/relinearization/)
    expect(error.message).toMatch(/rotation by 3/)
    expect(error.details?.server).toMatchObject({ needsRelinKeys: true })
    const details = error.details?.server as { missingSteps: number[] }
    expect(details.missingSteps).toEqual(expect.arrayContaining([3]))
    expect(details.missingSteps).not.toContain(1)
  })

  it('refuses inputs encrypted under another secret key than the key set, before any work', async () => {
    const ctx = await getHeContext(params)
    using keys = KeySet.generate(ctx, { relin: true })
    using stranger = KeySet.generate(ctx, {})
    const client = await server.tenant()
    await client.putKeySet('relin', exportEvaluationKeys(keys))
    const square: ProgramInput = {
      version: 1,
      inputs: [{ name: 'x', kind: 'ciphertext' }],
      steps: [
        { op: 'square', a: 'x', out: 'x2' },
        { op: 'relinearize', a: 'x2', out: 'out' },
      ],
      outputs: ['out'],
    }
    const x = withScope((scope) =>
      saveSealObject(encryptSymmetric(stranger, encodeBatch(ctx, [1, 2, 3], scope), scope), {
        kind: 'ciphertext',
        fingerprint: ctx.fingerprint,
        keySetId: stranger.id,
        compression: 'zstd',
      }),
    )
    const error = await errorOf(client.evaluate({ params, program: square, inputs: { x }, keySet: 'relin' }))
    expect([error.code, error.details?.status]).toEqual(['KEY_SET_MISMATCH', 409])
    expect(error.message).toMatch(/the inputs were encrypted under another secret key than key set "relin"/)
    // Refused on the loop: never queued for a worker.
    expect(error.details?.timing).not.toHaveProperty('queue')
  })

  it('takes the key set from ?keySet= (for proxies routing by key set) and refuses a conflicting body', async () => {
    const client = await server.tenant()
    const token = client.token as string
    const binary = { 'content-type': 'application/octet-stream' }
    const viaUrl = await raw(`${server.url}/api/v1/evaluate?keySet=nothing-here`, {
      method: 'POST',
      token,
      body: encodeEvaluateRequest({ params, program, inputs: {} }),
      headers: binary,
    })
    expect([viaUrl.status, viaUrl.json.error?.code]).toEqual([404, 'NOT_FOUND'])
    expect(viaUrl.json.error?.message).toMatch(/nothing-here/)
    const conflicting = await raw(`${server.url}/api/v1/evaluate?keySet=a`, {
      method: 'POST',
      token,
      body: encodeEvaluateRequest({ params, program, inputs: {}, keySet: 'b' }),
      headers: binary,
    })
    expect([conflicting.status, conflicting.json.error?.code]).toEqual([400, 'INVALID_INPUT'])
  })
})

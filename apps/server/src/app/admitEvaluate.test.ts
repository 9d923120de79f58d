import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HeError, type ProgramInput } from '@sealbox/he-core'
import { encodeEvaluateRequest } from '@sealbox/he-core/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FileKeyStore } from '../store/FileKeyStore.ts'
import { testFacts } from '../store/keyStoreTestKit.ts'
import { admitEvaluate } from './admitEvaluate.ts'
import { parseEvaluateRequest } from './parseEvaluateRequest.ts'

const params = { scheme: 'bfv', polyModulusDegree: 4096, plainModulus: { batchingBits: 20 } } as const
const limits = { MAX_POLY_DEGREE: 8192, MAX_PROGRAM_STEPS: 16, MAX_JOB_HEAP_BYTES: 2 ** 31 }

/** rotateRows(1): the Galois element 3 at n = 4096. */
const rotate: ProgramInput = {
  version: 1,
  inputs: [{ name: 'x', kind: 'ciphertext' }],
  steps: [{ op: 'rotateRows', a: 'x', steps: 1, out: 'out' }],
  outputs: ['out'],
}

/** multiply → relinearize: the relinearization key. */
const square: ProgramInput = {
  version: 1,
  inputs: [{ name: 'x', kind: 'ciphertext' }],
  steps: [
    { op: 'multiply', a: 'x', b: 'x', out: 'xx' },
    { op: 'relinearize', a: 'xx', out: 'out' },
  ],
  outputs: ['out'],
}

const parsed = (program: ProgramInput, keySet?: string) =>
  parseEvaluateRequest(
    encodeEvaluateRequest({ params, program, inputs: {}, ...(keySet ? { keySet } : {}) }),
    undefined,
    limits,
  )

describe('admitEvaluate', () => {
  let dir: string
  let store: FileKeyStore
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sealbox-admit-'))
    store = await FileKeyStore.open(dir, { quotaBytes: 1 << 20, maxKeySets: 8 })
    await store.put('alice', 'galois', testFacts({ galoisElements: [3, 9] }), new Uint8Array(64).fill(7))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('queues the program with only the keys it uses, priced, its parameters carried as parsed', async () => {
    const request = parsed(rotate, 'galois')
    const admitted = await admitEvaluate({ store, config: limits }, 'alice', request)
    expect(admitted.params).toBe(request.params)
    expect(admitted.job).toMatchObject({
      type: 'evaluate',
      program: rotate,
      keys: { tenant: 'alice', id: 'galois', bytes: 64 },
      keyUse: { galoisElements: [3], relinKeys: false },
    })
    expect(admitted.cost.units).toBeGreaterThan(0)
    // No keys needed, none named: no keys on the job.
    const plain = await admitEvaluate(
      { store, config: limits },
      'alice',
      parsed({ ...rotate, steps: [], outputs: ['x'] }),
    )
    expect(plain.job.keys).toBeUndefined()
  })

  it('refuses before queueing: MISSING_KEY (422) naming what the key set or the request lacks, NOT_FOUND', async () => {
    const lacking = await admitEvaluate({ store, config: limits }, 'alice', parsed(square, 'galois')).catch((e) => e)
    expect(lacking).toBeInstanceOf(HeError)
    expect(lacking).toMatchObject({ code: 'MISSING_KEY', details: { needsRelinKeys: true } })
    expect((lacking as HeError).httpStatus).toBe(422)
    const none = await admitEvaluate({ store, config: limits }, 'alice', parsed(rotate)).catch((e) => e)
    expect(none).toMatchObject({ code: 'MISSING_KEY', details: { missingSteps: [1], needsRelinKeys: false } })
    const unknown = await admitEvaluate({ store, config: limits }, 'alice', parsed(rotate, 'nope')).catch((e) => e)
    expect(unknown).toMatchObject({ code: 'NOT_FOUND' })
  })
})

import { galoisKeyWordsBytes } from '@sealbox/he-ring'
import { describe, expect, it } from 'vitest'
import { HeError } from '../errors/HeError.ts'
import { EvaluationKeys } from '../keys/EvaluationKeys.ts'
import { galoisElementOf } from '../keys/galoisElements.ts'
import { liveSealHandles } from '../scope/SealScope.ts'
import { wasmHeapBytes } from '../seal/loadSeal.ts'
import { collectGarbage } from '../testing/collectGarbage.ts'
import { isKernelGaloisKeyBytes, KernelGaloisKeys } from './KernelGaloisKeys.ts'
import { PrivateSearchClient } from './PrivateSearchClient.ts'
import { PrivateSearchIndex } from './PrivateSearchIndex.ts'
import { plaintextSearchScores } from './plaintextSearchScores.ts'
import { searchFixture } from './searchTestKit.ts'
import { syntheticSearchQuery } from './syntheticSearchDatabase.ts'

/** The server's default shape: BGV n=4096, server-side baby steps, rotations in the key-switching kernel. */
const SHAPE = { rows: 300, dimension: 16, babySteps: 'server', babyStep: 4 } as const

function codeOf(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(HeError)
    return (error as HeError).code
  }
  return 'none'
}

describe('KernelGaloisKeys', () => {
  it('answers exactly what SEAL keys answer, from the conversion and from its bytes after a structured clone', async () => {
    using fixture = await searchFixture(SHAPE)
    const { ctx, config, database, client, index } = fixture
    const keys = fixture.keys as EvaluationKeys
    expect(index.kernel).toBe('keySwitch')
    const elements = config.galoisSteps.map((step) => galoisElementOf(config.polyModulusDegree, step))
    using converted = KernelGaloisKeys.fromSeal(ctx, keys, elements)
    const bytes = structuredClone(converted.toBytes())
    expect(isKernelGaloisKeyBytes(bytes)).toBe(true)
    using viewed = KernelGaloisKeys.fromBytes(ctx, bytes)
    expect(viewed.galoisElements).toEqual([...elements].sort((a, b) => a - b))
    expect(viewed.id).toBe(keys.keySetId)
    for (const [seed, user] of [keys, converted, viewed].entries()) {
      const vector = syntheticSearchQuery(config.dimension, 40 + seed)
      const { response } = index.evaluate(client.encryptQuery(vector), user)
      expect([...client.decryptScores(response).scores]).toEqual([...plaintextSearchScores(config, database, vector)])
    }
  })

  it('counts its bytes exactly: the one buffer, header and words, and nothing in SEAL heap or the kernel', async () => {
    using fixture = await searchFixture(SHAPE)
    const { ctx, config, database, index } = fixture
    const n = config.polyModulusDegree
    const elements = config.galoisSteps.map((step) => galoisElementOf(n, step))
    const perElement = galoisKeyWordsBytes(n, ctx.coeffPrimes.length)
    // 32 users' keys, each converted once; what a worker receives is a structured clone.
    const clients = Array.from({ length: 32 }, () => PrivateSearchClient.create(ctx, config))
    const forms = clients.map((client) => {
      using sealKeys = EvaluationKeys.load(ctx, client.evaluationKeys() as Uint8Array)
      using kernelKeys = KernelGaloisKeys.fromSeal(ctx, sealKeys, elements)
      return kernelKeys.toBytes().slice()
    })
    try {
      // Queries encrypted up front (each client makes its encryptor once): from here on
      // SEAL's heap and handles can only change for the keys' sake.
      const vectors = clients.map((_, i) => syntheticSearchQuery(config.dimension, i))
      const queries = clients.map((client, i) => client.encryptQuery(vectors[i] as Float64Array))
      const handles = liveSealHandles()
      const sealHeap = wasmHeapBytes() ?? 0
      const kernelHeap = index.heapBytes
      // A full collection before each reading: garbage from earlier work freed in between
      // would otherwise be subtracted from what the keys hold.
      // The count is process-wide: ArrayBuffers the test runner itself allocates in the window
      // (its messages to vitest's main process) land in it too, so the closest of up to three
      // windows is compared, each with the users' keys made afresh.
      let users: KernelGaloisKeys[] = []
      let counted = 0
      const offBy: number[] = []
      for (let window = 0; window < 3 && !(Math.min(...offBy) < 0.02); window++) {
        users = []
        collectGarbage()
        const buffersBefore = process.memoryUsage().arrayBuffers
        users = forms.map((form) => KernelGaloisKeys.fromBytes(ctx, structuredClone(form)))
        collectGarbage()
        const buffersAfter = process.memoryUsage().arrayBuffers
        counted = users.reduce((sum, user) => sum + user.bytes, 0)
        offBy.push(Math.abs(buffersAfter - buffersBefore - counted) / counted)
      }
      for (const user of users) {
        expect(user.bytes).toBe(user.toBytes().buffer.byteLength)
        expect(user.kernelWords.bytes).toBe(elements.length * perElement)
        // The header (ids, fingerprint, elements) is under a kilobyte beside the words.
        expect(user.bytes - user.kernelWords.bytes).toBeGreaterThan(0)
        expect(user.bytes - user.kernelWords.bytes).toBeLessThan(1024)
      }
      // What the cache counts is what the process holds in ArrayBuffers for them (other
      // allocations in between are small beside 32 × 384 KiB).
      expect(Math.min(...offBy)).toBeLessThan(0.02)
      expect(liveSealHandles()).toBe(handles)
      expect(wasmHeapBytes() ?? 0).toBe(sealHeap)
      const responses = users.map((user, i) => index.evaluate(queries[i] as Uint8Array, user).response)
      // No SEAL object and no kernel growth for any user's keys: the words live in the keys' own buffer.
      expect(liveSealHandles()).toBe(handles)
      expect(index.heapBytes).toBe(kernelHeap)
      const heapAfterFirst = wasmHeapBytes() ?? 0
      for (const [i, user] of users.entries()) index.evaluate(queries[i] as Uint8Array, user)
      expect(wasmHeapBytes() ?? 0).toBe(heapAfterFirst)
      for (const i of [0, 31]) {
        const scores = (clients[i] as PrivateSearchClient).decryptScores(responses[i] as Uint8Array).scores
        expect([...scores]).toEqual([...plaintextSearchScores(config, database, vectors[i] as Float64Array)])
      }
    } finally {
      for (const client of clients) client.dispose()
    }
  })

  it('refuses forged or foreign bytes, other params, missing elements, and an index that runs in SEAL', async () => {
    using fixture = await searchFixture(SHAPE)
    const { ctx, config, database, client } = fixture
    const keys = fixture.keys as EvaluationKeys
    const n = config.polyModulusDegree
    const elements = config.galoisSteps.map((step) => galoisElementOf(n, step))
    using good = KernelGaloisKeys.fromSeal(ctx, keys, elements)
    const bytes = good.toBytes()
    const forged = (edit: (copy: Uint8Array) => Uint8Array) => () =>
      KernelGaloisKeys.fromBytes(ctx, edit(bytes.slice()))
    expect(codeOf(forged((copy) => copy.subarray(0, copy.byteLength - 4)))).toBe('INVALID_ENVELOPE')
    expect(
      codeOf(
        forged((copy) => {
          copy[0] = 0
          return copy
        }),
      ),
    ).toBe('INVALID_ENVELOPE')
    expect(
      codeOf(
        forged((copy) => {
          // The last word of the first element at its prime: SEAL would never have written it.
          const words = new Uint32Array(copy.buffer, copy.byteLength - 4, 1)
          words[0] = Number(ctx.coeffPrimes[ctx.coeffPrimes.length - 1])
          return copy
        }),
      ),
    ).toBe('INVALID_ENVELOPE')
    expect(
      codeOf(
        forged((copy) => {
          new DataView(copy.buffer).setUint32(8, 1 << 30, true)
          return copy
        }),
      ),
    ).toBe('INVALID_ENVELOPE')
    // An odd byte offset is copied, not viewed unaligned.
    const shifted = new Uint8Array(bytes.byteLength + 1)
    shifted.set(bytes, 1)
    using unaligned = KernelGaloisKeys.fromBytes(ctx, shifted.subarray(1))
    expect(unaligned.galoisElements).toEqual(good.galoisElements)
    expect(unaligned.bytes).toBe(bytes.byteLength)
    // Bytes inside a larger buffer (a process message) are copied out: the keys keep only their own.
    const framed = new Uint8Array(bytes.byteLength + 4096)
    framed.set(bytes, 1024)
    using inside = KernelGaloisKeys.fromBytes(ctx, framed.subarray(1024, 1024 + bytes.byteLength))
    expect(inside.bytes).toBe(bytes.byteLength)
    expect(inside.toBytes().buffer).not.toBe(framed.buffer)
    expect(codeOf(() => KernelGaloisKeys.fromBytes({ ...ctx, fingerprint: 'other' }, bytes))).toBe('PARAMS_MISMATCH')
    expect(codeOf(() => KernelGaloisKeys.fromSeal(ctx, keys, [...elements, galoisElementOf(n, 3)]))).toBe('MISSING_KEY')

    // Keys holding only the giant step: the index names the step they lack.
    using partial = KernelGaloisKeys.fromSeal(ctx, keys, [galoisElementOf(n, config.babyStep)])
    const query = client.encryptQuery(syntheticSearchQuery(config.dimension, 1))
    expect(codeOf(() => fixture.index.evaluate(query, partial))).toBe('MISSING_KEY')
    using sealIndex = PrivateSearchIndex.process(ctx, database, config, { kernel: 'seal' })
    expect(codeOf(() => sealIndex.evaluate(query, good))).toBe('INVALID_INPUT')
    good.dispose()
    expect(codeOf(() => good.kernelWords)).toBe('INVALID_INPUT')
  })
})

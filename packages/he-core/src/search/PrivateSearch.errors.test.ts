import { beforeAll, describe, expect, it } from 'vitest'
import { encodeBatch } from '../codecs/batchCodec.ts'
import { encryptSymmetricSeeded } from '../crypto/encrypt.ts'
import { encodeBundle } from '../envelope/encodeBundle.ts'
import { encodeEnvelope } from '../envelope/encodeEnvelope.ts'
import { HeError } from '../errors/HeError.ts'
import { sealExceptionCount } from '../errors/toHeError.ts'
import { EvaluationKeys } from '../keys/EvaluationKeys.ts'
import { galoisElementOf } from '../keys/galoisElements.ts'
import { KeySet } from '../keys/KeySet.ts'
import { getHeContext } from '../params/ContextCache.ts'
import { liveSealHandles, withScope } from '../scope/SealScope.ts'
import { measureHeap } from '../testing/measureHeap.ts'
import { PrivateSearchClient } from './PrivateSearchClient.ts'
import { PrivateSearchIndex } from './PrivateSearchIndex.ts'
import { plaintextSearchScores } from './plaintextSearchScores.ts'
import { resolveSearchConfig, searchShapeOf } from './SearchConfig.ts'
import type { SearchConfigInput } from './SearchConfigInput.ts'
import { scaleQueryVector } from './scaleVectors.ts'
import { querySlots } from './searchLayout.ts'
import { type SearchFixture, searchFixture, testDatabase } from './searchTestKit.ts'
import { encodeSearchQuery } from './searchWire.ts'
import { syntheticSearchQuery } from './syntheticSearchDatabase.ts'

const SERVER_SIDE: SearchConfigInput = { rows: 5000, dimension: 10, babySteps: 'server', babyStep: 4 }
const NO_KEYS: SearchConfigInput = { rows: 5000, dimension: 10, babySteps: 'client', babyStep: 16 }

let server: SearchFixture
let keyless: SearchFixture

beforeAll(async () => {
  server = await searchFixture(SERVER_SIDE)
  keyless = await searchFixture(NO_KEYS)
  return () => {
    server[Symbol.dispose]()
    keyless[Symbol.dispose]()
  }
})

const query = (dimension = 10) => syntheticSearchQuery(dimension, 11)

/** The coded error `fn` throws, checking that it never reached SEAL (no C++ exception was caught). */
function codeOf(fn: () => unknown, options: { reachesSeal?: boolean } = {}): HeError {
  const before = sealExceptionCount()
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(HeError)
    if (!options.reachesSeal) expect(sealExceptionCount()).toBe(before)
    return error as HeError
  }
  expect.unreachable('expected an HeError')
}

/** A client of another key set for the same config. */
function otherClient(fixture: SearchFixture): PrivateSearchClient {
  return PrivateSearchClient.create(fixture.ctx, fixture.config)
}

describe('private search refuses bad input with coded errors, before SEAL', () => {
  it('a key set missing a needed rotation step: MISSING_KEY naming the step', () => {
    using partial = KeySet.generate(server.ctx, { galois: { steps: [1] } })
    expect(codeOf(() => PrivateSearchClient.create(server.ctx, server.config, { keySet: partial })).code).toBe(
      'MISSING_KEY',
    )
    const envelope = encodeEnvelope({
      kind: 'galoisKeys',
      fingerprint: server.ctx.fingerprint,
      keySetId: partial.id,
      seeded: true,
      payload: partial.serializeGaloisKeys('zstd', true),
      meta: { steps: [1], elements: [galoisElementOf(4096, 1)] },
    })
    using keys = EvaluationKeys.load(server.ctx, envelope)
    const { ctx, config } = server
    const single = withScope((scope) => {
      const plaintext = scope.track(new ctx.seal.Plaintext())
      const scaled = scaleQueryVector(config, query())
      ctx.batchEncoder?.encode(querySlots(searchShapeOf(config), scaled, 0), plaintext)
      return { payload: encryptSymmetricSeeded(partial, plaintext, 'zstd'), seeded: true, level: ctx.topLevel }
    })
    const identity = { fingerprint: ctx.fingerprint, keySetId: partial.id, configId: config.configId }
    const error = codeOf(() => server.index.evaluate(encodeSearchQuery(identity, [single]), keys))
    expect(error.code).toBe('MISSING_KEY')
    expect(error.message).toMatch(/lack rotation step 4 \(this search needs 1, 4\)/)
  })

  it('no keys where rotations are needed: MISSING_KEY', () => {
    const error = codeOf(() => server.index.evaluate(server.client.encryptQuery(query()), null))
    expect(error.code).toBe('MISSING_KEY')
    expect(error.message).toMatch(/rotates by 1 and 4/)
  })

  it('a query of other parameters: PARAMS_MISMATCH', async () => {
    for (const other of [{ params: 'n4096-seal-default' }, { scheme: 'bfv' }, { params: 'n8192' }] as const) {
      using fixture = await searchFixture({ ...NO_KEYS, ...other })
      expect(codeOf(() => keyless.index.evaluate(fixture.client.encryptQuery(query()), null)).code).toBe(
        'PARAMS_MISMATCH',
      )
    }
    const bfv = await getHeContext(resolveSearchConfig({ ...NO_KEYS, scheme: 'bfv' }).params)
    expect(codeOf(() => PrivateSearchIndex.process(bfv, keyless.database, keyless.config)).code).toBe('PARAMS_MISMATCH')
    expect(codeOf(() => PrivateSearchClient.create(bfv, keyless.config)).code).toBe('PARAMS_MISMATCH')
    expect(codeOf(() => EvaluationKeys.load(bfv, server.client.evaluationKeys() as Uint8Array)).code).toBe(
      'PARAMS_MISMATCH',
    )
  })

  it('a query under another key set: KEY_SET_MISMATCH on the server (with keys) and on the client (without)', () => {
    using stranger = otherClient(server)
    const onServer = codeOf(() => server.index.evaluate(stranger.encryptQuery(query()), server.keys))
    expect(onServer.code).toBe('KEY_SET_MISMATCH')
    using other = otherClient(keyless)
    const { response } = keyless.index.evaluate(other.encryptQuery(query()), null)
    expect(codeOf(() => keyless.client.decryptScores(response)).code).toBe('KEY_SET_MISMATCH')
    expect(other.decryptScores(response).minNoiseBudget).toBeGreaterThan(0)
  })

  it('a wrong number of ciphertexts, in a query or a response: INVALID_INPUT', () => {
    const { ctx, config, client } = keyless
    const item = withScope((scope) => {
      const plaintext = encodeBatch(ctx, [1, 2, 3], scope)
      const serializable = scope.track(client.keySet.encryptor.encryptSymmetricSerializable(plaintext))
      return { payload: serializable.saveToArray(ctx.seal.ComprModeType.zstd) as Uint8Array, seeded: true, level: 1 }
    })
    const identity = { fingerprint: ctx.fingerprint, keySetId: client.keySet.id, configId: config.configId }
    const short = encodeSearchQuery(identity, Array(config.queryCiphertexts - 1).fill(item))
    const error = codeOf(() => keyless.index.evaluate(short, null))
    expect(error.code).toBe('INVALID_INPUT')
    expect(error.message).toMatch(/holds 15 ciphertexts; search config .* expects 16/)
    const full = keyless.index.evaluate(client.encryptQuery(query()), null)
    const firstBlock = keyless.index.evaluate(client.encryptQuery(query()), null, { blocks: { start: 0, end: 1 } })
    expect(codeOf(() => client.decryptScores(firstBlock.response)).message).toMatch(
      /holds 1 ciphertexts; .* has 2 blocks/,
    )
    expect(codeOf(() => client.decryptScores([full.response, firstBlock.response])).message).toMatch(
      /holds block 0 twice/,
    )
  })

  it('a query for another search config, a corrupted query, a secret key, a mod-switched ciphertext', () => {
    const { ctx, client, config } = keyless
    using rescaled = PrivateSearchClient.create(ctx, resolveSearchConfig({ ...NO_KEYS, scale: 100 }), {
      keySet: client.keySet,
    })
    expect(codeOf(() => keyless.index.evaluate(rescaled.encryptQuery(query()), null)).message).toMatch(
      /made for search config [0-9a-f]{32}; this index serves config/,
    )
    const corrupted = client.encryptQuery(query())
    const at = corrupted.length - 100
    corrupted[at] = (corrupted[at] as number) ^ 0xff
    expect(codeOf(() => keyless.index.evaluate(corrupted, null)).code).toBe('ENVELOPE_INTEGRITY')
    const identity = { fingerprint: ctx.fingerprint, keySetId: client.keySet.id, configId: config.configId }
    const switched = withScope((scope) => {
      const plaintext = encodeBatch(ctx, [1, 2, 3], scope)
      const ciphertext = scope.track(new ctx.seal.Ciphertext())
      client.keySet.encryptor.encryptSymmetric(plaintext, ciphertext)
      ctx.evaluator.cipherModSwitchToNextInplace(ciphertext)
      return { payload: ciphertext.saveToArray(ctx.seal.ComprModeType.none) as Uint8Array, seeded: false, level: 0 }
    })
    const lowered = encodeSearchQuery(identity, Array(config.queryCiphertexts).fill(switched))
    expect(codeOf(() => keyless.index.evaluate(lowered, null)).code).toBe('LEVEL_MISMATCH')
    expect(codeOf(() => client.encryptQuery([1, 2])).message).toMatch(/2 components, the search config says D=10/)
  })

  it('a bundle with a secret key is refused outright (SECRET_KEY_REFUSED)', () => {
    const { ctx, client, config } = keyless
    const secret = encodeEnvelope({
      kind: 'secretKey',
      fingerprint: ctx.fingerprint,
      keySetId: client.keySet.id,
      payload: client.keySet.serializeSecretKey('zstd'),
    })
    const bundle = encodeBundle([secret], { label: `sealbox.search.query/${config.configId}` })
    expect(codeOf(() => keyless.index.evaluate(bundle, null)).code).toBe('SECRET_KEY_REFUSED')
  })

  it('a spent noise budget is NOISE_BUDGET_EXHAUSTED, not garbage', async () => {
    // One 36-bit data prime: a fresh ciphertext has ~5 bits, the plaintext multiply takes them all.
    using fixture = await searchFixture({
      ...NO_KEYS,
      params: { scheme: 'bgv', polyModulusDegree: 4096, coeffModulus: [36, 30], plainModulus: { value: 65537 } },
    })
    const { response } = fixture.index.evaluate(fixture.client.encryptQuery(query()), null)
    const error = codeOf(() => fixture.client.decryptScores(response))
    expect(error.code).toBe('NOISE_BUDGET_EXHAUSTED')
  })
})

describe('the server half', () => {
  it('splits one query across indexes holding different blocks, and merges the parts', () => {
    const { ctx, config, database, client } = keyless
    using front = PrivateSearchIndex.process(ctx, database, config, { blocks: { start: 0, end: 1 } })
    using back = PrivateSearchIndex.process(ctx, database, config, { blocks: { start: 1, end: 2 } })
    expect(front.blocks).toEqual([0])
    expect(back.processing.plaintexts).toBe(config.blocks[1]?.diagonals)
    const q = query()
    const encrypted = client.encryptQuery(q)
    const parts = [back.evaluate(encrypted, null).response, front.evaluate(encrypted, null).response]
    expect(Array.from(client.decryptScores(parts).scores)).toEqual(
      Array.from(plaintextSearchScores(config, database, q)),
    )
    expect(codeOf(() => front.evaluate(encrypted, null, { blocks: { start: 1, end: 2 } })).message).toMatch(
      /not all processed here/,
    )
  })

  it('batches queries of several users with their own keys; one bad query fails alone', () => {
    using second = otherClient(server)
    const secondKeys = EvaluationKeys.load(server.ctx, second.evaluationKeys() as Uint8Array)
    const q = query()
    const results = server.index.evaluateBatch([
      { query: server.client.encryptQuery(q), keys: server.keys },
      { query: second.encryptQuery(q), keys: server.keys },
      { query: second.encryptQuery(q), keys: secondKeys },
    ])
    expect(results.map((r) => r.ok)).toEqual([true, false, true])
    const [first, bad, third] = results
    if (!first?.ok || bad?.ok !== false || !third?.ok) expect.unreachable('unexpected batch outcome')
    expect(bad.error.code).toBe('KEY_SET_MISMATCH')
    expect(first.evaluation.timings.computeMs).toBeGreaterThan(0)
    const oracle = Array.from(plaintextSearchScores(server.config, server.database, q))
    expect(Array.from(server.client.decryptScores(first.evaluation.response).scores)).toEqual(oracle)
    expect(Array.from(second.decryptScores(third.evaluation.response).scores)).toEqual(oracle)
    secondKeys.dispose()
  })

  it('refuses work after dispose', async () => {
    const index = PrivateSearchIndex.process(
      keyless.ctx,
      testDatabase(100, 3),
      resolveSearchConfig({ rows: 100, dimension: 3, babySteps: 'client', babyStep: 4 }),
    )
    index.dispose()
    expect(codeOf(() => index.evaluate(new Uint8Array(10), null)).message).toMatch(/disposed/)
  })

  it('leaks nothing on the error paths', () => {
    using stranger = otherClient(server)
    const foreign = stranger.encryptQuery(query())
    const report = measureHeap(
      () => {
        server.index.evaluate(foreign, server.keys)
      },
      { warmup: 5, iterations: 100, expectErrors: true },
    )
    expect(report.handlesAfter).toBe(report.handlesBefore)
    expect(report.heapAfter).toBe(report.heapAfterWarmup)
    expect(liveSealHandles()).toBe(report.handlesBefore)
  })
})

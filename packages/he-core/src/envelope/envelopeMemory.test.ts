import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sealExceptionCount } from '../errors/toHeError.ts'
import { getHeContext } from '../params/ContextCache.ts'
import { liveSealHandles, SealScope, withScope } from '../scope/SealScope.ts'
import { scrambleParmsId } from '../testing/forgedEnvelopes.ts'
import { measureHeap } from '../testing/measureHeap.ts'
import { decodeBundle } from './decodeBundle.ts'
import { encodeBundle } from './encodeBundle.ts'
import { encodeEnvelope } from './encodeEnvelope.ts'
import { loadSealObject } from './loadSealObject.ts'
import { saveSealObject } from './saveSealObject.ts'
import { makeSealTestFixture, type SealTestFixture } from './sealTestFixture.ts'

const KEY_SET = 'cccccccccccccccccccccccccccccccc'
const scope = new SealScope()
let f: SealTestFixture
let handlesAtStart: number

beforeAll(async () => {
  const ctx = await getHeContext({ scheme: 'bfv', polyModulusDegree: 4096 })
  handlesAtStart = liveSealHandles()
  f = makeSealTestFixture(ctx, scope, KEY_SET)
})
afterAll(() => {
  scope.dispose()
  expect(liveSealHandles()).toBe(handlesAtStart)
})

function expectFlat(report: ReturnType<typeof measureHeap>) {
  // A heap of 0 would mean the memory was never captured and the check below proves nothing.
  expect(report.heapAfterWarmup).toBeGreaterThan(0)
  expect(report.handlesAfter).toBe(report.handlesBefore)
  expect(report.heapAfter).toBe(report.heapAfterWarmup)
}

describe('envelope load/free loops keep the WASM heap flat', () => {
  it('save + load + free a ciphertext, 300 times', () => {
    const common = { fingerprint: f.ctx.fingerprint, keySetId: KEY_SET } as const
    expectFlat(
      measureHeap(() =>
        withScope((s) => {
          const bytes = saveSealObject(f.ciphertext, { ...common, kind: 'ciphertext', compression: 'zstd' })
          const ciphertext = s.track(new f.ctx.seal.Ciphertext())
          loadSealObject(ciphertext, f.ctx, bytes, { kind: 'ciphertext', keySetId: KEY_SET })
        }),
      ),
    )
  })

  it('seeded saves (Serializable objects freed each time), 200 times', () => {
    expectFlat(
      measureHeap(
        () =>
          withScope((s) => {
            const seeded = s.track(f.encryptor.encryptSymmetricSerializable(f.plaintext))
            const bytes = saveSealObject(seeded, {
              kind: 'ciphertext',
              fingerprint: f.ctx.fingerprint,
              keySetId: KEY_SET,
              compression: 'none',
            })
            const ciphertext = s.track(new f.ctx.seal.Ciphertext())
            loadSealObject(ciphertext, f.ctx, bytes, { kind: 'ciphertext' })
          }),
        { iterations: 200 },
      ),
    )
  })

  it('a bundle of relin + Galois keys, loaded and freed 60 times', () => {
    const common = { fingerprint: f.ctx.fingerprint, keySetId: KEY_SET, compression: 'none' } as const
    const upload = encodeBundle([
      saveSealObject(f.relinKeys, { ...common, kind: 'relinKeys' }),
      saveSealObject(f.galoisKeys, { ...common, kind: 'galoisKeys', meta: { elements: f.galoisElements } }),
    ])
    expectFlat(
      measureHeap(
        () =>
          withScope((s) => {
            const [relin, galois] = decodeBundle(upload, {
              itemKind: ['relinKeys', 'galoisKeys'],
              refuseSecretKey: true,
            }).items
            if (!relin || !galois || relin.kind !== 'relinKeys' || galois.kind !== 'galoisKeys')
              expect.unreachable('bad bundle')
            loadSealObject(s.track(new f.ctx.seal.RelinKeys()), f.ctx, relin, { kind: 'relinKeys' })
            loadSealObject(s.track(new f.ctx.seal.GaloisKeys()), f.ctx, galois, { kind: 'galoisKeys' })
          }),
        { warmup: 5, iterations: 60 },
      ),
    )
  })

  it('refused loads (targets allocated, bytes corrupted) free everything, 300 times', () => {
    const bytes = saveSealObject(f.ciphertext, {
      kind: 'ciphertext',
      fingerprint: f.ctx.fingerprint,
      keySetId: KEY_SET,
      compression: 'none',
    })
    let i = 0
    expectFlat(
      measureHeap(
        () =>
          withScope((s) => {
            const copy = bytes.slice()
            const at = 8 + ((i++ * 7919) % (copy.length - 12))
            copy[at] = (copy[at] as number) ^ 0x01
            loadSealObject(s.track(new f.ctx.seal.Ciphertext()), f.ctx, copy, { kind: 'ciphertext' })
          }),
        { expectErrors: true },
      ),
    )
  })

  it('forged envelopes that SEAL itself refuses free everything too, 60 times', () => {
    const bytes = encodeEnvelope({
      kind: 'ciphertext',
      fingerprint: f.ctx.fingerprint,
      payload: scrambleParmsId(f.ciphertext.saveToArray(f.ctx.seal.ComprModeType.none) as Uint8Array),
    })
    const before = sealExceptionCount()
    expectFlat(
      measureHeap(
        () =>
          withScope((s) => loadSealObject(s.track(new f.ctx.seal.Ciphertext()), f.ctx, bytes, { kind: 'ciphertext' })),
        { warmup: 10, iterations: 60, expectErrors: true },
      ),
    )
    expect(sealExceptionCount()).toBe(before + 70)
  })
})

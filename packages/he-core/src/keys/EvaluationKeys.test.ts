import { beforeAll, describe, expect, it } from 'vitest'
import { getHeContext } from '../params/ContextCache.ts'
import type { HeContext } from '../params/HeContext.ts'
import { liveSealHandles } from '../scope/SealScope.ts'
import { resolveSearchConfig } from '../search/SearchConfig.ts'
import { heErrorOf } from '../testing/forgedEnvelopes.ts'
import { decodeEvaluationKeys, EvaluationKeys } from './EvaluationKeys.ts'
import { exportEvaluationKeys, exportGaloisKeys, exportRelinKeys, exportSecretKey } from './exportKeys.ts'
import { galoisElementOf } from './galoisElements.ts'
import { KeySet } from './KeySet.ts'

let ctx: HeContext

beforeAll(async () => {
  ctx = await getHeContext({ scheme: 'bfv', polyModulusDegree: 4096 })
})

const codeOf = (fn: () => unknown) => heErrorOf(fn).code

describe('EvaluationKeys', () => {
  it('loads a bundle of relinearization and Galois keys, and owns their handles until disposed', () => {
    using keys = KeySet.generate(ctx, { relin: true, galois: { steps: [1, 3] } })
    const before = liveSealHandles()
    const loaded = EvaluationKeys.load(ctx, exportEvaluationKeys(keys))
    expect(loaded.id).toBe(keys.id)
    expect(loaded.relinKeys).toBeDefined()
    expect(loaded.galoisElements).toEqual([galoisElementOf(4096, 1), galoisElementOf(4096, 3)].sort((a, b) => a - b))
    expect(loaded.heapBytes).toBeGreaterThan(0)
    expect(liveSealHandles()).toBe(before + 2)
    loaded.dispose()
    expect(loaded.disposed).toBe(true)
    expect(liveSealHandles()).toBe(before)
  })

  it("counts the key-switching kernel's words only when the keys may meet a search in the kernel", async () => {
    // The default search's params: BGV n=4096, every prime below 2^31.
    const search = resolveSearchConfig({ rows: 300, dimension: 16, babySteps: 'server', babyStep: 4 })
    const bgv = await getHeContext(search.params)
    using keys = KeySet.generate(bgv, { galois: { steps: [1, 4] } })
    const bytes = exportGaloisKeys(keys)
    using counted = EvaluationKeys.load(bgv, bytes)
    using sealOnly = EvaluationKeys.load(bgv, bytes, { countKernelWords: false })
    const sealBytes = 2 * bgv.facts.sizes.galoisKeyPerStep
    expect(sealOnly.heapBytes).toBe(sealBytes)
    // u32 words: L = 2 components × 2 polynomials × 3 key primes × n, per element.
    expect(counted.heapBytes - sealBytes).toBe(2 * (2 * 2 * 3 * 4096 * 4))
  })

  it('loads one envelope of either kind, decoded or as bytes', () => {
    using keys = KeySet.generate(ctx, { relin: true, galois: { steps: [1] } })
    using galois = EvaluationKeys.load(ctx, exportGaloisKeys(keys))
    expect(galois.relinKeys).toBeUndefined()
    expect(galois.galoisElements).toHaveLength(1)
    using relin = EvaluationKeys.load(ctx, decodeEvaluationKeys(exportRelinKeys(keys)))
    expect(relin.galoisKeys).toBeUndefined()
    expect(() => relin.requireGaloisElements([galoisElementOf(4096, 1)], 'this program')).toThrow(
      /this program needs Galois elements/,
    )
  })

  it('refuses keys under other params, a secret key, and what is not evaluation keys, before SEAL loads anything', async () => {
    using keys = KeySet.generate(ctx, { relin: true })
    const other = await getHeContext({ scheme: 'bfv', polyModulusDegree: 8192 })
    const before = liveSealHandles()
    expect(codeOf(() => EvaluationKeys.load(other, exportEvaluationKeys(keys)))).toBe('PARAMS_MISMATCH')
    expect(codeOf(() => EvaluationKeys.load(other, decodeEvaluationKeys(exportEvaluationKeys(keys))))).toBe(
      'PARAMS_MISMATCH',
    )
    expect(codeOf(() => EvaluationKeys.load(ctx, exportSecretKey(keys)))).toBe('SECRET_KEY_REFUSED')
    expect(codeOf(() => EvaluationKeys.load(ctx, new Uint8Array(100)))).toBe('INVALID_ENVELOPE')
    expect(liveSealHandles()).toBe(before)
  })
})

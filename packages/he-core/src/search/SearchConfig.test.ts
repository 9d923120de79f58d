import { describe, expect, it } from 'vitest'
import { HeError } from '../errors/HeError.ts'
import { getHeContext } from '../params/ContextCache.ts'
import { resolveSearchConfig } from './SearchConfig.ts'
import type { SearchConfigInput } from './SearchConfigInput.ts'
import { searchConfigInputOf, verifySearchConfig } from './searchConfigInputOf.ts'
import { batchingPrime, SEARCH_PARAMS_PROFILES, type SearchParamsProfileName } from './searchParams.ts'
import { maxSearchScale } from './searchScaleOf.ts'

function failure(input: unknown): HeError {
  try {
    resolveSearchConfig(input)
  } catch (error) {
    expect(error).toBeInstanceOf(HeError)
    return error as HeError
  }
  expect.unreachable('expected the config to be refused')
}

describe('resolveSearchConfig', () => {
  it('derives the default config by end-to-end time over broadband: one packed query ciphertext, server-side g=8', () => {
    const config = resolveSearchConfig({ rows: 10_000, dimension: 16 })
    expect(config.params.polyModulusDegree).toBe(4096)
    expect(config.params.coeffModulusBits).toEqual([27, 28, 28])
    expect(config.plainModulus).toBe(65537)
    expect(config.scale).toBe(179)
    expect(config.paddedDimension).toBe(16)
    // 16 client-side ciphertexts would be 450 KB up (≈ 180 ms at 20 Mbit/s): one ciphertext and rotations win.
    expect(config.babySteps).toBe('server')
    expect(config.babyStep).toBe(8)
    expect(config.giantSteps).toBe(2)
    expect(config.galoisSteps).toEqual([1, 8])
    expect(config.queryCiphertexts).toBe(1)
    expect(config.compression).toBe('packed')
    expect(config.responseCompression).toBe('packed')
    expect(config.estimate).toMatchObject({ link: { name: 'broadband', upMbps: 20, downMbps: 100, rttMs: 20 } })
    expect(config.estimate?.queryBytes).toBeLessThan(30_000)
    const client = resolveSearchConfig({ rows: 10_000, dimension: 16, babySteps: 'client', babyStep: 16 })
    expect(client.galoisSteps).toEqual([])
    expect(client.queryCiphertexts).toBe(16)
    expect(client.estimate?.totalMs).toBeGreaterThan(2 * (config.estimate?.totalMs ?? 0))
    // 2 full blocks of 16 diagonals and a folded last block (1808 rows ≤ n/2) of 8.
    expect(config.blocks.map((b) => [b.firstRow, b.rows, b.folded, b.diagonals])).toEqual([
      [0, 4096, false, 16],
      [4096, 4096, false, 16],
      [8192, 1808, true, 8],
    ])
    expect(config.operations).toMatchObject({ multiplies: 40, babyRotations: 7, giantRotations: 2 })
    expect(config.configId).toMatch(/^[0-9a-f]{32}$/)
  })

  it('chooses for the declared link: a slower link still sends one ciphertext, and costs more', () => {
    const broadband = resolveSearchConfig({ rows: 4096, dimension: 128 })
    const mobile = resolveSearchConfig({ rows: 4096, dimension: 128, link: 'mobile' })
    expect(mobile.queryCiphertexts).toBe(1)
    expect(mobile.estimate?.totalMs).toBeGreaterThan(broadband.estimate?.totalMs ?? 0)
    // A fast, close link (servers talking to servers) makes bytes cheap: SEAL's own words load fastest.
    const local = resolveSearchConfig({
      rows: 10_000,
      dimension: 16,
      babySteps: 'client',
      link: { upMbps: 1e6, downMbps: 1e6, rttMs: 0 },
    })
    expect(local.compression).toBe('none')
    // Client-side, a rotation in the kernel (1.4 units) is cheaper than loading another query
    // ciphertext (1.75 uncompressed), so two ciphertexts beat four.
    expect(local.babyStep).toBe(2)
    expect(failure({ rows: 10, dimension: 4, link: { upMbps: 0, downMbps: 1, rttMs: 0 } }).code).toBe('INVALID_INPUT')
  })

  it('keeps every score inside (−t/2, t/2): (s·R + √D/2)² ≤ (t−1)/2 and s+1 breaks it', () => {
    for (const [t, d, norm] of [
      [65537, 16, 1],
      [65537, 3, 1],
      [65537, 10, 2.5],
      [1032193, 128, 1],
    ] as const) {
      const s = maxSearchScale(t, d, norm)
      expect((s * norm + Math.sqrt(d) / 2) ** 2).toBeLessThanOrEqual((t - 1) / 2)
      expect(((s + 1) * norm + Math.sqrt(d) / 2) ** 2).toBeGreaterThan((t - 1) / 2)
    }
  })

  it('chooses g by the cost model: server-side BSGS picks g=8 for D=16 (9 rotations), client-side g=D', () => {
    const server = resolveSearchConfig({ rows: 10_000, dimension: 16, babySteps: 'server' })
    expect(server.babyStep).toBe(8)
    expect(server.galoisSteps).toEqual([1, 8])
    expect(server.operations).toMatchObject({ babyRotations: 7, giantRotations: 2, queryCiphertexts: 1 })
    // Client-side baby steps over broadband: each ciphertext costs ≈ 11 ms of upload, and a
    // rotation in the key-switching kernel far less, so few ciphertexts.
    const wide = resolveSearchConfig({ rows: 10_000, dimension: 64, babySteps: 'client' })
    expect(wide.babyStep).toBe(2)
    expect(wide.galoisSteps).toEqual([2])
    const folded = resolveSearchConfig({ rows: 1000, dimension: 64, babySteps: 'client' })
    expect(folded.babyStep).toBe(1)
    expect(folded.operations).toMatchObject({ queryCiphertexts: 1, giantRotations: 31, multiplies: 32 })
    // Over a free link more ciphertexts pay, and g need not divide D'.
    const free = { upMbps: 1e6, downMbps: 1e6, rttMs: 0 }
    const wideFree = resolveSearchConfig({ rows: 10_000, dimension: 64, babySteps: 'client', link: free })
    expect(wideFree.babyStep).toBe(5)
    expect(wideFree.galoisSteps).toEqual([5])
    // Encrypting a query ciphertext costs the client ≈ 1.6 ms, so even over a free link g = D' = 64 does not pay.
    const dyadic = resolveSearchConfig({
      rows: 10_000,
      dimension: 64,
      maxQueryCiphertexts: 64,
      babySteps: 'client',
      link: free,
    })
    expect(dyadic.babyStep).toBe(5)
    const given = resolveSearchConfig({ rows: 10_000, dimension: 64, babySteps: 'client', babyStep: 64 })
    expect(given.galoisSteps).toEqual([])
    expect(given.queryCiphertexts).toBe(64)
  })

  it('lists exactly the Galois steps used', () => {
    const steps = (input: SearchConfigInput) => resolveSearchConfig(input).galoisSteps
    expect(steps({ rows: 100, dimension: 16, babySteps: 'server', babyStep: 1 })).toEqual([1])
    expect(steps({ rows: 5000, dimension: 16, babySteps: 'server', babyStep: 4 })).toEqual([1, 4])
    expect(steps({ rows: 5000, dimension: 16, babySteps: 'server', babyStep: 16 })).toEqual([1])
    expect(steps({ rows: 5000, dimension: 16, babySteps: 'client', babyStep: 4 })).toEqual([4])
    // A folded single block needs only D'/2 diagonals: g = D'/2 has no giant step.
    expect(steps({ rows: 100, dimension: 16, babySteps: 'client', babyStep: 8 })).toEqual([])
  })

  it('hoisted baby steps: a key per step, g chosen with the hoisted cost, a configId of their own', () => {
    const server = { rows: 5000, dimension: 16, babySteps: 'server' } as const
    const hoisted = resolveSearchConfig({ ...server, babyStep: 4, hoistBabySteps: true })
    expect([hoisted.hoistBabySteps, hoisted.galoisSteps]).toEqual([true, [1, 2, 3, 4]])
    // g = D': no giant step, so keys for the baby steps only.
    expect(resolveSearchConfig({ ...server, babyStep: 16, hoistBabySteps: true }).galoisSteps).toEqual(
      Array.from({ length: 15 }, (_, i) => i + 1),
    )
    const single = resolveSearchConfig({ ...server, babyStep: 4 })
    expect(single.hoistBabySteps).toBe(false)
    expect(hoisted.configId).not.toBe(single.configId)
    expect(resolveSearchConfig({ ...server, babyStep: 4, hoistBabySteps: false }).configId).toBe(single.configId)
    // Client-side baby steps rotate nothing on the server: the option changes nothing.
    const client = { rows: 5000, dimension: 64, babySteps: 'client', babyStep: 4 } as const
    expect(resolveSearchConfig({ ...client, hoistBabySteps: true })).toEqual(resolveSearchConfig(client))
    // Where SEAL rotates (BFV; primes above 2^31 at n = 8192) the option is ignored: no extra keys.
    for (const other of [{ scheme: 'bfv' }, { params: 'n8192' }] as const) {
      const ignored = resolveSearchConfig({ ...server, ...other, babyStep: 4, hoistBabySteps: true })
      expect(ignored).toEqual(resolveSearchConfig({ ...server, ...other, babyStep: 4 }))
    }
    // Cheaper baby steps move the model's g up at Apple's shape, and its estimate down.
    const apple = { rows: 4096, dimension: 128, babySteps: 'server', compression: 'none' } as const
    const modelSingle = resolveSearchConfig(apple)
    const modelHoisted = resolveSearchConfig({ ...apple, hoistBabySteps: true })
    expect(modelHoisted.babyStep).toBeGreaterThan(modelSingle.babyStep)
    expect(modelHoisted.estimatedServerMs).toBeLessThan(modelSingle.estimatedServerMs)
    expect(modelHoisted.operations.babyRotations).toBe(modelHoisted.babyStep - 1)
    expect(verifySearchConfig(JSON.parse(JSON.stringify(modelHoisted)))).toEqual(modelHoisted)
  })

  it('gives a stable configId that changes with every contract field', () => {
    const base = { rows: 5000, dimension: 10, babySteps: 'client' } as const
    const id = resolveSearchConfig(base).configId
    expect(resolveSearchConfig({ ...base }).configId).toBe(id)
    // Server-side details do not change the query/response contract (g pinned: they can change the g the model picks).
    const pinned = { ...base, babyStep: 16 }
    const pinnedId = resolveSearchConfig(pinned).configId
    expect(resolveSearchConfig({ ...pinned, nttForm: false, compression: 'none' }).configId).toBe(pinnedId)
    expect(resolveSearchConfig({ ...pinned, responseCompression: 'none' }).configId).toBe(pinnedId)
    const variants: SearchConfigInput[] = [
      { ...base, rows: 5001 },
      { ...base, dimension: 11 },
      { ...base, metric: 'dot' },
      { ...base, scale: 100 },
      { ...base, babyStep: 4 },
      { ...base, babySteps: 'server', babyStep: 16 },
      { ...base, scheme: 'bfv' },
      { ...base, params: 'n8192' },
    ]
    const ids = variants.map((v) => resolveSearchConfig(v).configId)
    expect(new Set([id, ...ids]).size).toBe(variants.length + 1)
  })

  it('refuses impossible configs, naming the limit', () => {
    const tooWide = failure({ rows: 10, dimension: 2049 })
    expect(tooWide.code).toBe('INVALID_PARAMS')
    expect(tooWide.message).toMatch(/D=2049 pads to D'=4096, which must divide the batching row of n\/2=2048 slots/)
    expect(tooWide.details).toMatchObject({ field: 'dimension', limit: 2048 })
    expect(failure({ rows: 10, dimension: 16, babyStep: 32 }).message).toMatch(/g=32 exceeds D'=16/)
    expect(failure({ rows: 10, dimension: 16, scale: 180 }).message).toMatch(/s=180 can overflow.*s ≤ .* = 179/)
    expect(failure({ rows: 10, dimension: 16, metric: 'dot', maxNorm: 500 }).message).toMatch(
      /t=65537 is too small for D=16 and norm 500/,
    )
    expect(failure({ rows: 10, dimension: 4, maxNorm: 2 }).message).toMatch(/maxNorm applies to the dot metric only/)
    expect(failure({ rows: 10, dimension: 4, params: { scheme: 'ckks', polyModulusDegree: 8192 } }).message).toMatch(
      /not CKKS/,
    )
    const overLimit = failure({ rows: 10_000_000, dimension: 1024 })
    expect(overLimit.code).toBe('LIMIT_EXCEEDED')
    expect(overLimit.message).toMatch(
      /V=10000000 × D'=1024 needs 76\.3 GiB of u32 residues in the key-switching kernel's diagonal memory \(one copy per node, shared by its worker threads; one per process under EXECUTOR=process\); the limit is 3\.9 GiB/,
    )
    expect(failure({ rows: 0, dimension: 4 }).code).toBe('INVALID_INPUT')
    expect(failure({ rows: 10, dimension: 4, extra: true }).code).toBe('INVALID_INPUT')
    // Single-prime params cannot rotate: only client-side baby steps with g = D' work.
    const single = { params: { scheme: 'bfv', polyModulusDegree: 2048, plainModulus: { value: 65537 } } } as const
    expect(failure({ ...single, rows: 5000, dimension: 8, babySteps: 'server' }).message).toMatch(
      /need Galois keys, which n=2048 with a single prime cannot have/,
    )
    expect(resolveSearchConfig({ ...single, rows: 5000, dimension: 8 }).galoisSteps).toEqual([])
  })

  it('round-trips through JSON and refuses a config whose fields do not match its id', () => {
    for (const input of [
      { rows: 10_000, dimension: 16 },
      { rows: 300, dimension: 5, metric: 'dot', maxNorm: 3, babySteps: 'server', params: 'n8192', scheme: 'bfv' },
    ] as const) {
      const config = resolveSearchConfig(input)
      expect(resolveSearchConfig(searchConfigInputOf(config))).toEqual(config)
      expect(verifySearchConfig(JSON.parse(JSON.stringify(config)))).toEqual(config)
      const tampered = { ...JSON.parse(JSON.stringify(config)), scale: 3 }
      expect(() => verifySearchConfig(tampered)).toThrow(/claims id .* but its fields resolve to/)
    }
    expect(() => verifySearchConfig({ configId: 'x' })).toThrow(/does not resolve/)
  })

  it('knows the plain modulus SEAL picks for batchingBits', async () => {
    for (const [n, bits] of [
      [4096, 20],
      [8192, 17],
      [4096, 30],
    ] as const) {
      const ctx = await getHeContext({ scheme: 'bfv', polyModulusDegree: n, plainModulus: { batchingBits: bits } })
      expect(BigInt(batchingPrime(n, bits))).toBe(ctx.plainModulus)
    }
  })

  it('builds every profile under both schemes', async () => {
    for (const params of Object.keys(SEARCH_PARAMS_PROFILES) as SearchParamsProfileName[]) {
      for (const scheme of ['bgv', 'bfv'] as const) {
        const config = resolveSearchConfig({ rows: 100, dimension: 3, params, scheme })
        const ctx = await getHeContext(config.params)
        expect(ctx.plainModulus).toBe(65537n)
        expect(ctx.scheme).toBe(scheme)
      }
    }
  })
})

import { existsSync } from 'node:fs'
import { syntheticSearchDatabase } from '@sealbox/he-core/search'
import { describe, expect, it } from 'vitest'
import { VENV_PYTHON } from '../engines/native/NativeEngine.ts'
import { NativeSearchHarness } from '../engines/native/NativeSearchHarness.ts'
import { prepareNativeTwin, prepareNativeTwins } from './measureNativeSearch.ts'
import { prepareSearchCase, prepareSearchFixture, runInterleaved } from './measureSearch.ts'

// `npm test` makes the venv (scripts/sealbox.mjs, seal-python from PyPI) when python3 exists; only without python3 is this skipped.
describe.skipIf(!existsSync(VENV_PYTHON))('native search twin (seal-python)', () => {
  it('answers node-seal queries with responses he-core decrypts to the oracle, both baby-step sides and schemes', async () => {
    const database = syntheticSearchDatabase({ rows: 3000, dimension: 10, seed: 5 })
    await using harness = await NativeSearchHarness.start()
    const cases = []
    try {
      for (const input of [
        { rows: 3000, dimension: 10 },
        { rows: 3000, dimension: 10, compression: 'none' as const },
        { rows: 3000, dimension: 10, babySteps: 'server' as const, babyStep: 4 },
        { rows: 3000, dimension: 10, scheme: 'bfv' as const, babySteps: 'server' as const, babyStep: 2 },
      ]) {
        const wasm = await prepareSearchCase('wasm', input, database)
        cases.push(wasm, await prepareNativeTwin(wasm, harness))
      }
      const results = await runInterleaved(cases, { warmup: 1, samples: 2 })
      for (const result of results) {
        expect(result.exact, `${result.engine} ${result.config.scheme} ${result.config.babySteps}`).toBe(true)
        expect(result.phases.total.samples).toBe(2)
      }
      // The native side reads uncompressed seeded queries (the wheel has no zstd) and writes uncompressed responses.
      const native = results.filter((r) => r.engine === 'native')
      expect(native.map((r) => r.queryCompression)).toEqual(['none', 'none', 'none', 'none'])
    } finally {
      for (const item of cases) item[Symbol.dispose]()
    }
  })

  it('serves seeded and unseeded queries of one config from one native setup, without a WASM index', async () => {
    const database = syntheticSearchDatabase({ rows: 3000, dimension: 10, seed: 7 })
    await using harness = await NativeSearchHarness.start()
    using fixture = await prepareSearchFixture(
      { rows: 3000, dimension: 10, babySteps: 'client', babyStep: 8 },
      database,
    )
    const twins = await prepareNativeTwins({ label: 'client g=8', fixture }, harness, [
      { form: 'seeded', label: 'seeded' },
      { form: 'unseeded', label: 'unseeded' },
    ])
    try {
      const [seeded, unseeded] = await runInterleaved(twins, { warmup: 1, samples: 2 })
      expect([seeded?.exact, unseeded?.exact]).toEqual([true, true])
      expect([seeded?.querySeeded, unseeded?.querySeeded]).toEqual([true, false])
      // Both halves of every ciphertext: about twice the bytes.
      expect(unseeded?.queryBytes).toBeGreaterThan(1.9 * (seeded?.queryBytes ?? 0))
      expect(seeded?.config.queryCiphertexts).toBe(8)
    } finally {
      for (const twin of twins) twin[Symbol.dispose]()
    }
  })

  it('refuses a query for another config with a named error', async () => {
    const database = syntheticSearchDatabase({ rows: 100, dimension: 3, seed: 6 })
    await using harness = await NativeSearchHarness.start()
    using wasm = await prepareSearchCase('wasm', { rows: 100, dimension: 3 }, database)
    const fixture = wasm.fixture
    if (!fixture) expect.unreachable('no fixture')
    const { config, ctx } = fixture
    await harness.setup('wrong', {
      scheme: config.scheme,
      configId: 'f'.repeat(32),
      fingerprint: ctx.fingerprint,
      coeffModulusBits: config.params.coeffModulusBits,
      plainModulus: config.plainModulus,
      babySteps: config.babySteps,
      queryCiphertexts: config.queryCiphertexts,
      rows: config.rows,
      shape: { n: 4096, dimension: 3, paddedDimension: 4, babyStep: config.babyStep },
      blocks: config.blocks,
      scaled: new Int32Array(config.rows * 3),
      galoisKeys: null,
      queries: [fixture.client.encryptQuery([1, 0, 0])],
    })
    await expect(harness.sample('wrong', 0)).rejects.toThrow(/another search config/)
  })
})

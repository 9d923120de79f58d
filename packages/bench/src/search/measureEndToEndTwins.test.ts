import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { VENV_PYTHON } from '../engines/native/NativeEngine.ts'
import { NativeSearchHarness } from '../engines/native/NativeSearchHarness.ts'
import { measureEndToEndTwin, renderEndToEndTwins } from './measureEndToEndTwins.ts'

// `npm test` makes the venv (seal-python from PyPI) when python3 exists; only without python3 is this skipped.
describe.skipIf(!existsSync(VENV_PYTHON))("an end-to-end shape's server side beside native's best", () => {
  it('measures native in every candidate config, seeded and unseeded, round-robin, and names its best', async () => {
    await using harness = await NativeSearchHarness.start()
    const lines: string[] = []
    const row = await measureEndToEndTwin(
      { title: 'V=300, D=6: default', rows: 300, dimension: 6, env: {} },
      harness,
      2,
      (line) => lines.push(line),
    )
    expect(lines).toEqual([])
    expect(row.config.babySteps).toBe('server')
    expect(row.wasm.exact).toBe(true)
    // D' = 8: server-side g = 2, 4 (and the served g), client-side g = 8 — each seeded and unseeded.
    const modes = row.natives.map((n) => n.mode)
    for (const mode of [
      'server-side g=4 (1 ciphertext up), seeded none',
      'server-side g=4 (1 ciphertext up), unseeded none',
      'client-side g=8 (8 ciphertexts up), seeded none',
      'client-side g=8 (8 ciphertexts up), unseeded none',
    ]) {
      expect(modes).toContain(mode)
    }
    expect(row.natives.every((n) => n.exact && n.total.samples === 2)).toBe(true)
    expect(row.notTried).toEqual([])
    const best = row.nativeBest
    expect(best?.configs).toBe(row.natives.length)
    expect(best?.totalMin.ms).toBe(Math.min(...row.natives.map((n) => n.total.min)))
    expect(best?.cpu.ms).toBe(Math.min(...row.natives.map((n) => n.cpuMean)))
    const markdown = renderEndToEndTwins([row])
    expect(markdown).toContain(`${best?.totalMin.ms.toFixed(1)} (${best?.totalMin.mode})`)
    expect(markdown).toContain('client-side g=8 (8 ciphertexts up), unseeded none')
  })
})

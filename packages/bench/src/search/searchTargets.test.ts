import { describe, expect, it } from 'vitest'
import type { SearchMeasurement } from './measureSearch.ts'
import { nativeBest, searchTarget } from './searchTargets.ts'

/** A measurement with the fields the targets read (the rest are not looked at). */
function row(
  engine: 'wasm' | 'native',
  babySteps: 'client' | 'server',
  g: number,
  seeded: boolean,
  total: { min: number; median: number },
  cpu: number,
  exact = true,
): SearchMeasurement {
  return {
    label: `${engine} ${babySteps} g=${g} ${seeded ? 'seeded' : 'unseeded'}`,
    config: {
      scheme: 'bgv',
      babySteps,
      babyStep: g,
      hoistBabySteps: false,
      queryCiphertexts: babySteps === 'client' ? g : 1,
    },
    total: { ...total, samples: 10 },
    cpuMean: cpu,
    engine,
    kernel: engine === 'native' ? 'seal' : 'keySwitch',
    querySeeded: seeded,
    queryCompression: 'none',
    exact,
  } as unknown as SearchMeasurement
}

describe("targets over native's best", () => {
  it("divide by the lowest native figure of all native rows, each figure's own config, exact rows only", () => {
    const rows = [
      row('wasm', 'server', 8, true, { min: 9, median: 12 }, 8),
      row('native', 'server', 8, true, { min: 30, median: 40 }, 25),
      row('native', 'client', 16, false, { min: 18, median: 35 }, 20),
      row('native', 'server', 12, false, { min: 25, median: 30 }, 24),
      // Faster but wrong: never native's best.
      row('native', 'client', 32, true, { min: 1, median: 1 }, 1, false),
    ]
    const best = nativeBest(rows)
    expect(best?.configs).toBe(3)
    expect(best?.totalMin).toMatchObject({ ms: 18, mode: 'client-side g=16 (16 ciphertexts up), unseeded none' })
    expect(best?.totalMedian).toMatchObject({ ms: 30, mode: 'server-side g=12 (1 ciphertext up), unseeded none' })
    expect(best?.cpu.ms).toBe(20)
    const target = searchTarget('shape', 'default config', rows[0], rows)
    expect(target?.ratio).toEqual({ totalMin: 9 / 18, totalMedian: 12 / 30, cpu: 8 / 20 })
    // Beside it, native's best with one query ciphertext (server-side baby steps).
    expect(target?.oneCiphertextMin).toBe(9 / 25)
    expect(searchTarget('shape', 'default config', undefined, rows)).toBeUndefined()
    expect(searchTarget('shape', 'default config', rows[0], [rows[0] as SearchMeasurement])).toBeUndefined()
  })
})

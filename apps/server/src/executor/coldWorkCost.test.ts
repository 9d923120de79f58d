import { COST_UNIT_MS, parseParams } from '@sealbox/he-core'
import { describe, expect, it } from 'vitest'
import { contextBuildUnits, keyLoadUnits } from './coldWorkCost.ts'

const ms = (units: number) => units * COST_UNIT_MS

describe('cold work cost', () => {
  it('prices building a context as measured: ~0.1 s at n = 4096, ~0.4 s at n = 8192, ~2 s at n = 16384', () => {
    const at = (n: number) =>
      ms(contextBuildUnits(parseParams({ scheme: 'bgv', polyModulusDegree: n, plainModulus: { batchingBits: 20 } })))
    // Measured (thread CPU): 88–94 ms, 375–383 ms and 2,078–2,157 ms.
    expect(at(4096)).toBeGreaterThan(60)
    expect(at(4096)).toBeLessThan(140)
    expect(at(8192)).toBeGreaterThan(250)
    expect(at(8192)).toBeLessThan(600)
    expect(at(16384)).toBeGreaterThan(1500)
    expect(at(16384)).toBeLessThan(3000)
  })

  it('prices a key set from the store (seeded) above the same keys from the bytes cache (full form)', () => {
    const stored = keyLoadUnits({ storedBytes: 25 * 2 ** 20 })
    const full = keyLoadUnits({ storedBytes: 25 * 2 ** 20, fullFormBytes: 60 * 2 ** 20 })
    // Measured: 334–394 ms and 112–113 ms (bgv n = 8192, Galois keys for every power of two).
    expect(ms(stored)).toBeGreaterThan(300)
    expect(ms(full)).toBeGreaterThan(100)
    expect(full).toBeLessThan(stored)
  })
})

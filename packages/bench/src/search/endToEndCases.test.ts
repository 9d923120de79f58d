import { resolveSearchConfig } from '@sealbox/he-core/search'
import { configFor } from '@sealbox/server'
import { describe, expect, it } from 'vitest'
import { endToEndCases, processedPlaintextBytes } from './endToEndCases.ts'

describe('the end-to-end cases', () => {
  it("run each embedding row's default and name V = 100,000 at D = 768 as a limit of the server's defaults", () => {
    const { cases, limits } = endToEndCases(false)
    const titles = cases.map((c) => c.title)
    for (const title of ['V=10,000, D=384: default', 'V=10,000, D=768: default', 'V=100,000, D=384: default']) {
      expect(titles).toContain(title)
    }
    // Default rows carry no server settings: the server serves resolveSearchConfig's choice for their D.
    for (const c of cases.filter((c) => c.title.endsWith(': default'))) expect(c.env).toEqual({})
    expect(resolveSearchConfig({ rows: 10_000, dimension: 768 }).params.coeffModulusBits).toEqual([30, 30, 31])
    expect(resolveSearchConfig({ rows: 10_000, dimension: 384 }).params.coeffModulusBits).toEqual([30, 30, 31])
    // 25 blocks × 1024 diagonals × 4096 × 2 primes × 8 bytes: above the 1 GiB recycle threshold.
    expect(limits.map((l) => l.title)).toEqual(['V=100,000, D=768: default'])
    expect(limits[0]?.reason).toMatch(/1568 MiB of NTT-form plaintexts .* WORKER_HEAP_RECYCLE_BYTES \(1024 MiB\)/)
    const recycle = configFor().WORKER_HEAP_RECYCLE_BYTES
    for (const c of cases) expect(processedPlaintextBytes(c), c.title).toBeLessThanOrEqual(recycle)
  })

  it('--quick keeps Apple’s shape and one embedding row', () => {
    const { cases, limits } = endToEndCases(true)
    expect(cases.map((c) => [c.rows, c.dimension])).toEqual([
      [4096, 128],
      [4096, 128],
      [10_000, 384],
    ])
    expect(limits).toEqual([])
  })
})

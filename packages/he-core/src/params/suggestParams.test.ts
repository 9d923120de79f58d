import { describe, expect, it } from 'vitest'
import { runWorkspace } from '../workspace/runWorkspace.ts'
import { MAX_COEFF_BITS } from './coeffModulusTables.ts'
import type { ParamsNeeds } from './ParamsNeeds.ts'
import { parseParams } from './parseParams.ts'
import { suggestParams } from './suggestParams.ts'

/** depth × (square, relinearize[, rescale]) on x, printing the last result. */
function squaringChain(depth: number, ckks: boolean) {
  const steps = []
  let last = 'x'
  for (let i = 0; i < depth; i++) {
    steps.push({ op: 'square', a: last, out: `s${i}` }, { op: 'relinearize', a: `s${i}`, out: `r${i}` })
    last = `r${i}`
    if (ckks) {
      steps.push({ op: 'rescaleToNext', a: last, out: `q${i}` })
      last = `q${i}`
    }
  }
  return { steps, last }
}

describe('suggestParams', () => {
  it("stays inside SEAL's secure coefficient-modulus budget and picks the smallest n that fits", () => {
    for (const security of ['tc128', 'tc192', 'tc256'] as const) {
      for (const depth of [0, 1, 2, 4, 8]) {
        for (const kind of [{ plainBits: 20 }, { plainBits: 40 }, { precisionBits: 20 }, { precisionBits: 30 }]) {
          const result = suggestParams({ depth, slots: 8, security, ...kind })
          if (!result.ok) {
            expect(result.problems[0]?.message).toMatch(/No n up to 32768 is large enough/)
            continue
          }
          const n = result.params.polyModulusDegree
          const bits = result.params.coeffModulus
          const total = bits.reduce((a, b) => a + b, 0)
          expect(total).toBe(result.totalBits)
          expect(total).toBeLessThanOrEqual(MAX_COEFF_BITS[security][n] ?? 0)
          expect(Math.max(...bits)).toBeLessThanOrEqual(60)
          // The chain needs a special prime at least as large as every data prime.
          expect(bits.at(-1)).toBe(Math.max(...bits))
          expect(result.reasons[0]).toContain(`n = ${n}`)
          // SEAL itself (via he-core's checks) accepts it.
          expect(() => parseParams(result.params)).not.toThrow()
        }
      }
    }
  })

  it('BFV: the suggested parameters really carry `depth` multiplications (real SEAL, exact values)', async () => {
    const depth = 3
    const result = suggestParams({ depth, slots: 4, plainBits: 20, security: 'tc128' })
    if (!result.ok) expect.unreachable(JSON.stringify(result.problems))
    expect(result.params).toMatchObject({ scheme: 'bfv', polyModulusDegree: 8192 })
    const { steps, last } = squaringChain(depth, false)
    const run = await runWorkspace({
      version: 1,
      params: result.params,
      variables: [{ name: 'x', kind: 'ciphertext', values: [1, 2, 3, -3] }],
      steps,
      print: [last],
    })
    // x^8 for |x| ≤ 3 fits a 20-bit t: the chain is exact.
    expect(run.lines[0]).toBe(`${last} = [1, 256, 6561, 6561, 0, 0, 0, 0, ...]`)
  })

  it('BGV: a levelled chain that carries `depth` multiplications, each mod-switched (real SEAL)', async () => {
    const depth = 3
    const result = suggestParams({ depth, slots: 4, plainBits: 20, security: 'tc128', scheme: 'bgv' })
    if (!result.ok) throw new Error(JSON.stringify(result.problems))
    expect(result.params).toMatchObject({ scheme: 'bgv', polyModulusDegree: 8192 })
    // A first prime, one per multiplication, the special prime.
    expect(result.params.coeffModulus).toHaveLength(depth + 2)
    expect(result.reasons[1]).toMatch(/^BGV, as asked/)
    const steps = []
    let last = 'x'
    for (let i = 0; i < depth; i++) {
      steps.push(
        { op: 'square', a: last, out: `s${i}` },
        { op: 'relinearize', a: `s${i}`, out: `r${i}` },
        { op: 'modSwitchToNext', a: `r${i}`, out: `m${i}` },
      )
      last = `m${i}`
    }
    const run = await runWorkspace({
      version: 1,
      params: result.params,
      variables: [{ name: 'x', kind: 'ciphertext', values: [1, 2, 3, -3] }],
      steps,
      print: [last],
    })
    expect(run.lines[0]).toBe(`${last} = [1, 256, 6561, 6561, 0, 0, 0, 0, ...]`)
  })

  // One test per chain (n = 32768 at depth 8 builds a large context and key set): each
  // gets its own deadline on a loaded machine.
  it.each([
    [0, 20],
    [1, 17],
    [5, 20],
    [2, 30],
    [8, 25],
  ] as const)(
    'BGV: depth %i, %i-bit values: the suggestion decrypts right after every level (real SEAL)',
    async (depth, plainBits) => {
      const result = suggestParams({ depth, slots: 4, plainBits, security: 'tc128', scheme: 'bgv' })
      if (!result.ok) throw new Error(`${depth}, ${plainBits}: ${JSON.stringify(result.problems)}`)
      const steps = []
      let last = 'x'
      for (let i = 0; i < depth; i++) {
        steps.push(
          { op: 'square', a: last, out: `s${i}` },
          { op: 'relinearize', a: `s${i}`, out: `r${i}` },
          { op: 'modSwitchToNext', a: `r${i}`, out: `m${i}` },
        )
        last = `m${i}`
      }
      // ±1 squared stays 1 whatever the depth: only the noise can make it wrong.
      const run = await runWorkspace({
        version: 1,
        params: result.params,
        variables: [{ name: 'x', kind: 'ciphertext', values: [1, -1, 0, depth === 0 ? -1 : 1] }],
        steps,
        print: [last],
      })
      expect(run.lines[0], `${depth} multiplications, ${plainBits} bits`).toBe(
        `${last} = [1, ${depth === 0 ? -1 : 1}, 0, ${depth === 0 ? -1 : 1}, 0, 0, 0, 0, ...]`,
      )
      // The chain is stable, not just lucky: each mod switch brings the noise back to the
      // same floor (bits of the modulus left − budget − 1). Levels too small for a key set
      // let it grow a little at every level (1, 2, 4 … bits) long before a wrong result;
      // 3 bits allow for whole-bit budgets and prime sizes.
      const data = Array.from(result.params.coeffModulus, Number).slice(0, -1)
      const switched = run.steps
        .filter((step) => step.op === 'modSwitchToNext')
        .map(
          (step, level) =>
            data.slice(0, data.length - 1 - level).reduce((a, b) => a + b, 0) - (step.noiseBudget ?? 0) - 1,
        )
      expect(switched).toHaveLength(depth)
      for (const noise of switched) expect(noise - (switched[0] ?? 0), JSON.stringify(switched)).toBeLessThanOrEqual(3)
    },
    300_000,
  )

  it('refuses a scheme that does not hold the values asked for', () => {
    const result = suggestParams({
      depth: 1,
      slots: 4,
      precisionBits: 20,
      security: 'tc128',
      scheme: 'bgv',
    })
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.problems.map((p) => p.field)).toEqual(['scheme'])
  })

  it('CKKS: the suggested parameters keep the asked precision through `depth` multiplications (real SEAL)', async () => {
    const depth = 2
    const precisionBits = 12
    const result = suggestParams({ depth, slots: 4, precisionBits, security: 'tc128' })
    if (!result.ok) expect.unreachable(JSON.stringify(result.problems))
    const { steps, last } = squaringChain(depth, true)
    const values = [0.5, 1.25, -1.5, 0.75]
    const run = await runWorkspace({
      version: 1,
      params: result.params,
      variables: [{ name: 'x', kind: 'ciphertext', values }],
      steps,
      print: [last],
      display: { slots: 4, decimals: 8 },
    })
    const got =
      /\[(.*)\]/
        .exec(run.lines[0] ?? '')?.[1]
        ?.split(', ')
        .map(Number) ?? []
    values.forEach((value, i) => {
      expect(Math.abs((got[i] ?? Number.NaN) - value ** 4)).toBeLessThan(2 ** -precisionBits)
    })
  })

  it('lists every broken need at once, in plain words, with the field it is about', () => {
    const result = suggestParams({ depth: -1, slots: 0, plainBits: 70, security: 'none' } as unknown as ParamsNeeds)
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.problems.map((p) => p.field)).toEqual(['depth', 'slots', 'plainBits', 'security'])
    expect(result.problems[2]?.message).toMatch(/13…60 bits/)
  })

  it('says what to give up when no ring is large enough', () => {
    const result = suggestParams({ depth: 30, slots: 8, plainBits: 40, security: 'tc256' })
    expect(result).toMatchObject({ ok: false })
    if (result.ok) return
    expect(result.problems).toHaveLength(1)
    expect(result.problems[0]?.message).toMatch(
      /^No n up to 32768 is large enough for 30 multiplications with 40-bit plaintexts at tc256 \(\d+ bits at n = 32768, which allows 476\); .*at most \d+ multiplications in a row would work\.$/,
    )
  })

  it('too many slots does not hide a depth no ring can hold: both are listed', () => {
    const result = suggestParams({ depth: 30, slots: 100_000, plainBits: 20, security: 'tc128' })
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.problems.map((p) => p.field)).toEqual(['slots', 'depth'])
    expect(result.problems[1]?.message).toMatch(
      /^No n up to 32768 is large enough for 30 multiplications with 20-bit plaintexts at tc128/,
    )
  })

  it('asks for exactly one of plaintext bits and precision bits', () => {
    const both = suggestParams({ depth: 1, slots: 8, plainBits: 20, precisionBits: 20, security: 'tc128' })
    expect(both).toMatchObject({ ok: false, problems: [{ field: 'plainBits' }] })
  })
})

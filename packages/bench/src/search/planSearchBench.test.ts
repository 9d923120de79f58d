import { resolveSearchConfig } from '@sealbox/he-core/search'
import { describe, expect, it } from 'vitest'
import { APPLE_DEFAULT_LABEL, planSearchBench, type SearchBenchItem } from './planSearchBench.ts'

/** A planned item's resolved config in a few words, with its query form and database. */
function describeItem(item: SearchBenchItem): string {
  const c = resolveSearchConfig(item.input)
  return `${item.apple ? 'apple' : 'main'} ${c.scheme === 'bgv' ? '' : `${c.scheme} `}${c.nttForm ? '' : 'coefficient '}${c.babySteps} g=${c.babyStep} ${item.seeded === false ? 'unseeded' : 'seeded'} ${c.compression}/${c.responseCompression}${item.kernel ? ` ${item.kernel}` : ''}${c.hoistBabySteps ? ' hoisted' : ''}`
}

describe('the search benchmark plan', () => {
  for (const headlineOnly of [false, true]) {
    it(`runs native SEAL in every config that could be its fastest, at both shapes${headlineOnly ? ' (--headline)' : ''}`, () => {
      const plan = planSearchBench({ rows: 10_000, dimension: 16, headlineOnly, withApple: true })
      const natives = new Set(plan.items.filter((item) => item.native).map(describeItem))
      for (const shape of ['main', 'apple'] as const) {
        const [server, client] =
          shape === 'main'
            ? [
                [4, 8],
                [8, 16],
              ]
            : [
                [8, 12, 16],
                [8, 16, 32],
              ]
        for (const form of ['seeded', 'unseeded']) {
          for (const g of server) expect(natives).toContain(`${shape} server g=${g} ${form} none/none`)
          // Client-side baby steps: g query ciphertexts (native's fastest in a quiet run at Apple's shape: g = 16).
          for (const g of client) expect(natives).toContain(`${shape} client g=${g} ${form} none/none`)
        }
      }
      // A candidate already planned gets its native twin there instead of a second item.
      const all = plan.items.map(describeItem)
      const candidates = plan.items.filter((item) => item.group === 'candidates' || item.group === 'appleCandidates')
      expect(candidates.length).toBeGreaterThan(0)
      for (const item of candidates) expect(all.filter((d) => d === describeItem(item))).toHaveLength(1)
      // The WASM default at Apple's shape, which the targets divide by native's best.
      const appleDefault = plan.items.find((item) => item.label === APPLE_DEFAULT_LABEL)
      expect(appleDefault?.input).toEqual({ rows: 4096, dimension: 128 })
    })
  }
})

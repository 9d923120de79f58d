import { describe, expect, it } from 'vitest'
import { ENVELOPE_KINDS } from '../envelope/envelopeKinds.ts'
import { getHeContext } from '../params/ContextCache.ts'
import { EXAMPLE_WORKSPACES } from '../workspace/exampleWorkspaces.ts'
import { parseWorkspace } from '../workspace/parseWorkspace.ts'
import { GaloisKeyChoice } from './GaloisKeyChoice.ts'
import { KeySet } from './KeySet.ts'
import { KEY_KINDS } from './keyKinds.ts'

describe('GaloisKeyChoice', () => {
  it('parses the three choices a KeySet takes, and what a message carries is what KeySet makes', async () => {
    // The choices as they cross a thread or a file: JSON, parsed back with the schema.
    const wire = (value: unknown) => GaloisKeyChoice.parse(JSON.parse(JSON.stringify(value)))
    expect(wire(false)).toBe(false)
    expect(wire('powerOfTwo')).toBe('powerOfTwo')
    const steps = wire({ steps: [3, -1] })
    expect(steps).toEqual({ steps: [3, -1] })
    const ctx = await getHeContext({ scheme: 'bfv', polyModulusDegree: 4096 })
    using keys = KeySet.generate(ctx, { galois: steps })
    expect(keys.galoisSteps).toEqual([-1, 3])
  })

  it('refuses what is not a choice', () => {
    for (const value of [true, 'none', 'auto', 'all', { steps: [1.5] }, { steps: '1' }, null]) {
      expect(GaloisKeyChoice.safeParse(value).success, JSON.stringify(value)).toBe(false)
    }
  })

  it("is what a workspace's keys.galois resolves to", () => {
    const example = EXAMPLE_WORKSPACES.bfv
    const auto = parseWorkspace({ ...example, keys: { galois: 'auto' } }).keys.galois
    const none = parseWorkspace({ ...example, steps: [], print: ['x'], keys: { galois: 'none' } }).keys.galois
    for (const resolved of [auto, none]) expect(GaloisKeyChoice.safeParse(resolved).success).toBe(true)
    // The example rotates rows by 3 and swaps columns (step 0), among others.
    expect(auto).toMatchObject({ steps: expect.arrayContaining([0, 3]) })
    expect(none).toBe(false)
  })
})

describe('KEY_KINDS', () => {
  it('names the keys of a key set, each an envelope kind', () => {
    expect(KEY_KINDS).toEqual(['secretKey', 'publicKey', 'relinKeys', 'galoisKeys'])
    for (const kind of KEY_KINDS) expect(ENVELOPE_KINDS).toContain(kind)
  })
})

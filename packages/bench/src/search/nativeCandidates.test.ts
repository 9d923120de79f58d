import { describe, expect, it } from 'vitest'
import { nativeCandidates } from './nativeCandidates.ts'

const names = (paddedDimension: number) =>
  nativeCandidates(paddedDimension).map((c) => `${c.babySteps} g=${c.babyStep}`)

describe("native SEAL's candidate configs", () => {
  it("try server-side g around √D' (Apple's g = 12 at D' = 128) and client-side g = 8, 16, 32", () => {
    expect(names(16)).toEqual(['server g=4', 'server g=8', 'client g=8', 'client g=16'])
    expect(names(128)).toEqual(['server g=8', 'server g=12', 'server g=16', 'client g=8', 'client g=16', 'client g=32'])
    // No g beyond D'.
    expect(names(4)).toEqual(['server g=2', 'server g=4', 'client g=4'])
    for (const paddedDimension of [4, 16, 128, 512, 1024]) {
      for (const c of nativeCandidates(paddedDimension)) expect(c.babyStep).toBeLessThanOrEqual(paddedDimension)
    }
  })
})

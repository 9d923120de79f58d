import { describe, expect, it } from 'vitest'
import { HeError } from '../errors/HeError.ts'
import { plaintextSearchScores } from './plaintextSearchScores.ts'
import { searchFixture } from './searchTestKit.ts'
import { mergeSearchResponses } from './searchWire.ts'
import { syntheticSearchQuery } from './syntheticSearchDatabase.ts'

function codeOf(run: () => unknown): string | undefined {
  try {
    run()
  } catch (error) {
    return error instanceof HeError ? error.code : undefined
  }
  return undefined
}

describe('mergeSearchResponses', () => {
  it('re-bundles the parts of a query split by blocks into what one worker answers', async () => {
    // Four blocks (V = 13,000 at n = 4096), server-side baby steps: the key-switching kernel.
    using fixture = await searchFixture({ rows: 13_000, dimension: 16, babySteps: 'server', babyStep: 4 })
    const { index, client, keys, config, ctx, database } = fixture
    const query = client.encryptQuery(syntheticSearchQuery(16, 5))
    const whole = index.evaluate(query, keys).response
    // Parts in any order, as workers finish.
    const parts = [
      index.evaluate(query, keys, { blocks: { start: 3, end: 4 } }).response,
      index.evaluate(query, keys, { blocks: { start: 0, end: 2 } }).response,
      index.evaluate(query, keys, { blocks: { start: 2, end: 3 } }).response,
    ]
    const identity = {
      fingerprint: ctx.fingerprint,
      keySetId: client.keySet.id,
      configId: config.configId,
      blockCount: config.blocks.length,
    }
    const merged = mergeSearchResponses(parts, identity)
    expect(merged).toEqual(whole)
    const oracle = plaintextSearchScores(config, database, syntheticSearchQuery(16, 5))
    expect(Array.from(client.decryptScores(merged).scores)).toEqual(Array.from(oracle))
    // A block missing, or one twice, is refused: a merged response is always whole.
    expect(codeOf(() => mergeSearchResponses(parts.slice(1), identity))).toBe('INVALID_INPUT')
    expect(codeOf(() => mergeSearchResponses([...parts, parts[0] as Uint8Array], identity))).toBe('INVALID_INPUT')
    expect(codeOf(() => mergeSearchResponses(parts, { ...identity, keySetId: 'another' }))).toBe('INVALID_INPUT')
  })
})

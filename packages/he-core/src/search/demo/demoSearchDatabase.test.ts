import { describe, expect, it } from 'vitest'
import { EvaluationKeys } from '../../keys/EvaluationKeys.ts'
import { getHeContext } from '../../params/ContextCache.ts'
import { PrivateSearchClient } from '../PrivateSearchClient.ts'
import { PrivateSearchIndex } from '../PrivateSearchIndex.ts'
import { plaintextSearchScores } from '../plaintextSearchScores.ts'
import { resolveSearchConfig } from '../SearchConfig.ts'
import { topKIndices } from '../topK.ts'
import { demoSearchDatabase, type ElementMetadata } from './demoSearchDatabase.ts'
import { DEMO_EMBEDDING_DIMENSION, embedFields, embedText, queryWords } from './embedText.ts'

describe('the demo database (chemical elements, embedText)', () => {
  it('has 118 named elements, unit vectors, symbols as ids', () => {
    const database = demoSearchDatabase()
    expect(database.rows).toBe(118)
    expect(database.dimension).toBe(DEMO_EMBEDDING_DIMENSION)
    expect(new Set(database.ids).size).toBe(118)
    const iron = database.metadata?.[25] as ElementMetadata
    expect(iron).toEqual({
      name: 'Iron',
      symbol: 'Fe',
      number: 26,
      category: 'transition metal',
      phase: 'solid',
      period: 4,
    })
    for (let row = 0; row < database.rows; row++) {
      const vector = database.vectors.subarray(row * DEMO_EMBEDDING_DIMENSION, (row + 1) * DEMO_EMBEDDING_DIMENSION)
      expect(Math.hypot(...vector)).toBeCloseTo(1, 12)
    }
  })

  it('embeds text the same way every time: words and their letters, accents and case folded, zeros for none', () => {
    expect(embedText('Noble GAS')).toEqual(embedText('noble gas'))
    expect(embedText('Ångström')).toEqual(embedText('angstrom'))
    expect(embedText('  ,;! ').every((v) => v === 0)).toBe(true)
    expect(embedText('iron')).not.toEqual(embedText('neon'))
    expect(embedText('Iron Fe')).toEqual(embedFields([{ text: 'Iron Fe', weight: 1 }]))
  })

  it('finds every element first by its symbol or its name, in any case ("Fe" → Iron, not Mercury)', () => {
    const database = demoSearchDatabase()
    const config = resolveSearchConfig({ rows: database.rows, dimension: database.dimension })
    const elements = database.metadata as ElementMetadata[]
    const top = (query: string) => {
      const [row] = topKIndices(plaintextSearchScores(config, database, embedText(query)), 1)
      return elements[row as number]?.name
    }
    expect(top('Fe')).toBe('Iron')
    expect(top('Hg')).toBe('Mercury')
    expect(top('Au')).toBe('Gold')
    expect(top('Na')).toBe('Sodium')
    expect(top('He')).toBe('Helium')
    expect(top('mercury')).toBe('Mercury')
    const misses: string[] = []
    for (const element of elements) {
      for (const query of [element.symbol, element.name, element.symbol.toLowerCase(), element.name.toUpperCase()]) {
        if (top(query) !== element.name) misses.push(`${query} → ${top(query)}`)
      }
    }
    expect(misses).toEqual([])
  })

  it('reads a phrase by its meaningful words: "in" is glue in "metal used in batteries", a symbol alone', () => {
    const database = demoSearchDatabase()
    const config = resolveSearchConfig({ rows: database.rows, dimension: database.dimension })
    const elements = database.metadata as ElementMetadata[]
    const top = (query: string) => {
      const [row] = topKIndices(plaintextSearchScores(config, database, embedText(query)), 1)
      return elements[row as number]?.name
    }
    expect(queryWords('metal used in batteries')).toEqual(['metal', 'batteries'])
    expect(embedText('metal used in batteries')).toEqual(embedText('metal batteries'))
    expect(top('metal used in batteries')).not.toBe('Indium')
    // A lone word is kept, so every symbol still finds its element (In, He, As, No…).
    expect(queryWords('In')).toEqual(['in'])
    expect(top('in')).toBe('Indium')
    expect(top('He')).toBe('Helium')
    // A phrase of nothing but glue words keeps them all rather than becoming empty.
    expect(queryWords('in as at')).toEqual(['in', 'as', 'at'])
  })

  it('an encrypted search for words finds the elements they name (top-k equal to the plaintext ranking)', async () => {
    const database = demoSearchDatabase()
    const config = resolveSearchConfig({ rows: database.rows, dimension: database.dimension })
    const ctx = await getHeContext(config.params)
    const index = PrivateSearchIndex.process(ctx, database, config)
    const client = PrivateSearchClient.create(ctx, config, {
      catalog: { ids: database.ids, metadata: database.metadata ?? [] },
    })
    const keyBytes = client.evaluationKeys()
    const keys = keyBytes === null ? null : EvaluationKeys.load(ctx, keyBytes)
    try {
      const expectations: Array<[string, (hit: ElementMetadata) => boolean]> = [
        ['noble gas', (hit) => hit.category === 'noble gas'],
        ['halogen', (hit) => hit.category === 'halogen'],
        ['alkali', (hit) => hit.category === 'alkali metal'],
      ]
      for (const [words, fits] of expectations) {
        const query = embedText(words)
        const { response } = index.evaluate(client.encryptQuery(query), keys)
        const scores = client.decryptScores(response)
        const hits = client.topK(scores, 4)
        expect(hits.map((hit) => hit.row)).toEqual(topKIndices(plaintextSearchScores(config, database, query), 4))
        expect(
          hits.every((hit) => fits(hit.metadata as ElementMetadata)),
          words,
        ).toBe(true)
      }
      for (const words of ['iron', 'Fe']) {
        const iron = client.topK(
          client.decryptScores(index.evaluate(client.encryptQuery(embedText(words)), keys).response),
          1,
        )
        expect(iron[0]?.id, words).toBe('Fe')
      }
    } finally {
      keys?.dispose()
      client.dispose()
      index.dispose()
    }
  })
})

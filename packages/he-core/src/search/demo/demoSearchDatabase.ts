import { type SearchDatabase, validateSearchDatabase } from '../SearchDatabase.ts'
import { ELEMENTS, type ElementCategory, type ElementPhase } from './elements.ts'
import { DEMO_EMBEDDING_DIMENSION, type EmbeddingField, embedFields } from './embedText.ts'

/** What a demo row's metadata says about its element (shown as fields, not JSON). */
export interface ElementMetadata {
  /** IUPAC name ("Aluminium", "Caesium"). */
  name: string
  /** Chemical symbol; also the row's id. */
  symbol: string
  /** Atomic number. */
  number: number
  /** Category, as periodic tables colour it. */
  category: ElementCategory
  /** State at 20 °C and 1 atm. */
  phase: ElementPhase
  /** Row of the periodic table. */
  period: number
}

/** How much an element's name and symbol count against its category and phase. */
const NAME_WEIGHT = 1.5

/**
 * What a demo row's vector embeds: the words a person would search the element by. Its
 * name and symbol weigh more than its category and phase, so "Fe" finds Iron before the
 * other transition metals whose letters collide with it.
 */
export function elementFields(element: ElementMetadata): EmbeddingField[] {
  return [
    { text: element.name, weight: NAME_WEIGHT },
    { text: element.symbol, weight: NAME_WEIGHT },
    { text: element.category, weight: 1 },
    { text: element.phase, weight: 1 },
  ]
}

/** The demo database's name (the served source's label). */
export const DEMO_DATABASE_NAME = 'chemical elements'

/**
 * The private search demo database: the 118 chemical elements, each row the
 * `embedFields` of its name and symbol (weighted) and its category and phase, with the element as metadata and
 * its symbol as id. Built the same way wherever it is built (the server at start-up, a
 * test, a client checking results), so queries embedded with `embedText` mean words.
 * `dimension` is the embedding's (default 256); queries must use the same.
 */
export function demoSearchDatabase(dimension = DEMO_EMBEDDING_DIMENSION): SearchDatabase {
  const metadata: ElementMetadata[] = ELEMENTS.map(([number, symbol, name, category, phase, period]) => ({
    name,
    symbol,
    number,
    category,
    phase,
    period,
  }))
  const vectors = new Float64Array(metadata.length * dimension)
  for (const [row, element] of metadata.entries()) {
    vectors.set(embedFields(elementFields(element), dimension), row * dimension)
  }
  return validateSearchDatabase({
    dimension,
    rows: metadata.length,
    vectors,
    ids: metadata.map((element) => element.symbol),
    metadata,
  })
}

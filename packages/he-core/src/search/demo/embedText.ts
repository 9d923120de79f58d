/**
 * Components of a demo embedding (a power of two: the search pads to one anyway). 256
 * keeps hash collisions rare enough that every element's name and symbol finds that
 * element first; a search over 118 such rows is still one block at n = 4096.
 */
export const DEMO_EMBEDDING_DIMENSION = 256

/** A piece of text and how much its words count in an embedding. */
export interface EmbeddingField {
  text: string
  /** Multiplies every feature of the text (1 = as typed in a query). */
  weight: number
}

/**
 * FNV-1a, 32 bits, then murmur3's finalizer: a small public hash, the same in every
 * JavaScript engine. FNV-1a alone leaves the low bits (the component index) poorly mixed
 * for short strings such as "fe" and "^fe"; the finalizer spreads them.
 */
function featureHash(text: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  hash ^= hash >>> 16
  hash = Math.imul(hash, 0x85ebca6b) >>> 0
  hash ^= hash >>> 13
  hash = Math.imul(hash, 0xc2b2ae35) >>> 0
  return (hash ^ (hash >>> 16)) >>> 0
}

/** Lower-case words of letters and digits (accents folded: "Ångström" → "angstrom"). */
function embeddingWords(text: string): string[] {
  return (
    text
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .match(/[a-z0-9]+/g) ?? []
  )
}

/**
 * The demo's public text embedding of weighted fields: every word, and every
 * three-letter piece of each word (so "gases" still meets "gas", and a typo meets its
 * word), hashed into `dimension` components with a sign taken from the hash, times its
 * field's weight, then scaled to length 1. The demo database weights an element's name
 * and symbol above its category and phase, so typing "Fe" or "iron" finds Iron first
 * while "noble gas" still finds the noble gases. A hashing trick, not a language model:
 * it matches words and their spelling, not meaning. All zeros for text without a letter
 * or digit.
 */
export function embedFields(fields: readonly EmbeddingField[], dimension = DEMO_EMBEDDING_DIMENSION): number[] {
  const vector = new Array<number>(dimension).fill(0)
  const add = (feature: string, weight: number) => {
    const hash = featureHash(feature)
    const index = (hash >>> 1) % dimension
    vector[index] = (vector[index] as number) + (hash & 1 ? -weight : weight)
  }
  for (const { text, weight } of fields) {
    for (const word of embeddingWords(text)) {
      add(`w:${word}`, weight)
      const padded = `^${word}$`
      for (let i = 0; i + 3 <= padded.length; i++) add(`t:${padded.slice(i, i + 3)}`, 0.5 * weight)
    }
  }
  const norm = Math.hypot(...vector)
  return norm === 0 ? vector : vector.map((value) => value / norm)
}

/**
 * English function words that are also element symbols (In, As, At, Be, He, No, I, O, S…)
 * or say nothing about an element. In a phrase they are the glue, not the subject:
 * "metal used in batteries" ranked Indium first because "in" is its symbol.
 */
const PHRASE_STOP_WORDS = new Set([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'by',
  'for',
  'he',
  'i',
  'in',
  'is',
  'it',
  'no',
  'of',
  'on',
  'or',
  'so',
  'the',
  'to',
  'us',
  'used',
  'we',
  'with',
])

/** The query's words that carry meaning: a phrase drops its function words; a lone word is kept ("In" finds Indium). */
export function queryWords(text: string): string[] {
  const words = embeddingWords(text)
  if (words.length < 2) return words
  const meaningful = words.filter((word) => !PHRASE_STOP_WORDS.has(word))
  return meaningful.length > 0 ? meaningful : words
}

/**
 * A typed query's vector: `embedFields` of its meaningful words (`queryWords`) at weight 1.
 * Anyone can compute it — the server's demo rows were made with the same function, so
 * only the query's words decide what is near.
 */
export function embedText(text: string, dimension = DEMO_EMBEDDING_DIMENSION): number[] {
  return embedFields([{ text: queryWords(text).join(' '), weight: 1 }], dimension)
}

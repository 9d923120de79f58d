/** Components of a demo embedding (a power of two: the search pads to one anyway). */
export const DEMO_EMBEDDING_DIMENSION = 64

/** FNV-1a, 32 bits: a small public hash, the same in every JavaScript engine. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash
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
 * The demo's public text embedding: every word, and every three-letter piece of each
 * word (so "gases" still meets "gas", and a typo meets its word), hashed into
 * `dimension` components with a sign taken from the hash, then scaled to length 1.
 * Anyone can compute it — the server's database rows were made with it, and the
 * sandbox turns a typed query into a vector with it, so only the query's words decide
 * what is near. A hashing trick, not a language model: it matches words and their
 * spelling, not meaning. Returns all zeros for text without a letter or digit.
 */
export function embedText(text: string, dimension = DEMO_EMBEDDING_DIMENSION): number[] {
  const vector = new Array<number>(dimension).fill(0)
  const add = (feature: string, weight: number) => {
    const hash = fnv1a(feature)
    const sign = hash & 1 ? -1 : 1
    vector[(hash >>> 1) % dimension] = (vector[(hash >>> 1) % dimension] as number) + sign * weight
  }
  for (const word of embeddingWords(text)) {
    add(`w:${word}`, 1)
    const padded = `^${word}$`
    for (let i = 0; i + 3 <= padded.length; i++) add(`t:${padded.slice(i, i + 3)}`, 0.5)
  }
  const norm = Math.hypot(...vector)
  return norm === 0 ? vector : vector.map((value) => value / norm)
}

import type { EndToEndCase } from './measureEndToEnd.ts'

/** The previous default: the client sends the 16 rotations of q (g = 16), zstd queries and keys, so the server rotates little. */
const PREVIOUS_DEFAULT = { SEARCH_BABY_STEPS: 'client', SEARCH_BABY_STEP: '16' }

/** Sentence-embedding sizes (D) and database sizes (V) of the embedding rows. */
export const EMBEDDING_DIMENSIONS = [128, 384, 768] as const
export const EMBEDDING_ROWS = [10_000, 100_000] as const

/**
 * The configs of the end-to-end section: Apple's PNNS shape (V = 4096, D = 128) and the
 * project's benchmark shape (V = 10,000, D = 16), each with today's default (chosen by
 * he-core for broadband) and the previous one; then the default at embedding sizes, every
 * D of EMBEDDING_DIMENSIONS with every V of EMBEDDING_ROWS (n = 4096 holds them all: D' ≤
 * n/2 = 2048, and the default's noise budget is the same at any D). `--quick` keeps
 * Apple's shape (both configs) and one embedding row.
 */
export function endToEndCases(quick: boolean): EndToEndCase[] {
  const apple: EndToEndCase[] = [
    { title: "Apple's shape V=4096, D=128: default", rows: 4096, dimension: 128, env: {} },
    {
      title: 'Apple’s shape: previous default (client g=16, zstd queries)',
      rows: 4096,
      dimension: 128,
      env: PREVIOUS_DEFAULT,
      queryEncoding: 'zstd',
      keyEncoding: 'zstd',
    },
  ]
  const embedding = (rows: number, dimension: number): EndToEndCase => ({
    title: `V=${rows.toLocaleString('en-US')}, D=${dimension}: default`,
    rows,
    dimension,
    env: {},
    // 25 blocks at V = 100,000: fewer samples keep the run near half an hour.
    ...(rows > 10_000 ? { samples: 5 } : {}),
  })
  if (quick) return [...apple, embedding(10_000, 384)]
  return [
    ...apple,
    { title: 'V=10,000, D=16: default', rows: 10_000, dimension: 16, env: {} },
    {
      title: 'V=10,000, D=16: previous default (client g=16, zstd queries)',
      rows: 10_000,
      dimension: 16,
      env: PREVIOUS_DEFAULT,
      queryEncoding: 'zstd',
      keyEncoding: 'zstd',
    },
    // Not V = 100,000 at D = 768: its server processes 25 × 1024 diagonals (0.8 GB of kernel words) and
    // did not become ready within 5 minutes on this shared 2-core VM.
    ...EMBEDDING_ROWS.flatMap((rows) =>
      EMBEDDING_DIMENSIONS.filter((dimension) => rows * dimension <= 100_000 * 384).map((dimension) =>
        embedding(rows, dimension),
      ),
    ),
    {
      // At D = 768 the default is n4096-wide [30, 30, 31] (6 bits of noise budget per block, in
      // the kernel); SEAL's default chain [36, 36, 37] leaves 12, in SEAL's evaluator (its primes pass 2^31).
      title: 'V=10,000, D=768: n4096-seal-default ([36, 36, 37])',
      rows: 10_000,
      dimension: 768,
      env: { SEARCH_PROFILE: 'n4096-seal-default' },
      samples: 5,
    },
  ]
}

/** The cases whose client also runs in Chromium: the default at Apple's shape and at D = 16. */
export function browserCase(c: EndToEndCase): boolean {
  return Object.keys(c.env).length === 0 && (c.dimension === 16 || (c.rows === 4096 && c.dimension === 128))
}

import { resolveSearchConfig, SEARCH_PARAMS_PROFILES, type SearchParamsProfileName } from '@sealbox/he-core/search'
import { configFor } from '@sealbox/server'
import { BenchError } from '../BenchError.ts'
import { BENCH_SERVER_ENV } from '../load/benchServerEnv.ts'

/** One config the end-to-end section measures: a database shape and the server's search settings. */
export interface EndToEndCase {
  title: string
  rows: number
  dimension: number
  /** Server settings (`SEARCH_*`); none means the server's default, chosen by he-core. */
  env: Record<string, string>
  /** The client's query encoding, when not the config's. */
  queryEncoding?: 'zstd' | 'none' | 'packed'
  /** The client's Galois-key encoding, when not the default (packed). */
  keyEncoding?: 'zstd' | 'none' | 'packed'
  /** Timed queries per link when fewer than the run's (the slowest shapes). */
  samples?: number
}

/**
 * The settings of `c`'s server: one pool worker serving the synthetic database of seed 1
 * (what the clients' oracle rebuilds), the case's own SEARCH_* settings, and CORS for the
 * browser client's origin when there is one.
 */
export function endToEndServerEnv(c: EndToEndCase, corsOrigin?: string): Record<string, string> {
  return {
    ...BENCH_SERVER_ENV,
    EXECUTOR: 'pool',
    WORKERS: '1',
    SYNTHETIC_ROWS: String(c.rows),
    SYNTHETIC_DIM: String(c.dimension),
    SYNTHETIC_SEED: '1',
    ...(corsOrigin ? { CORS_ORIGINS: corsOrigin } : {}),
    ...c.env,
  }
}

/** The previous default: the client sends the 16 rotations of q (g = 16), zstd queries and keys, so the server rotates little. */
const PREVIOUS_DEFAULT = { SEARCH_BABY_STEPS: 'client', SEARCH_BABY_STEP: '16' }

/** Sentence-embedding sizes (D) and database sizes (V) of the embedding rows. */
export const EMBEDDING_DIMENSIONS = [128, 384, 768] as const
export const EMBEDDING_ROWS = [10_000, 100_000] as const

/** A shape the end-to-end section does not measure, and why (the report names it). */
export interface EndToEndLimit {
  title: string
  reason: string
}

/** The cases of one run, and the shapes left out as limits of the server's defaults. */
export interface EndToEndPlan {
  cases: EndToEndCase[]
  limits: EndToEndLimit[]
}

/**
 * Bytes of NTT-form plaintexts a server's worker holds in SEAL's heap once it has processed
 * `c`'s database with its default config (or the case's SEARCH_PROFILE): every diagonal of
 * every block at every data prime. The kernel copies them, but a WASM heap never shrinks.
 */
export function processedPlaintextBytes(c: EndToEndCase): number {
  const profile = c.env.SEARCH_PROFILE
  if (profile !== undefined && !Object.hasOwn(SEARCH_PARAMS_PROFILES, profile)) {
    throw new BenchError('INTERNAL', `${c.title}: SEARCH_PROFILE ${profile} is not a search profile`)
  }
  const config = resolveSearchConfig({
    rows: c.rows,
    dimension: c.dimension,
    ...(profile ? { params: profile as SearchParamsProfileName } : {}),
  })
  const diagonals = config.blocks.reduce((sum, block) => sum + block.diagonals, 0)
  return diagonals * config.polyModulusDegree * 8 * (config.params.coeffModulusBits.length - 1)
}

/**
 * The configs of the end-to-end section: Apple's PNNS shape (V = 4096, D = 128) and the
 * project's benchmark shape (V = 10,000, D = 16), each with today's default (chosen by
 * he-core for broadband) and the previous one; then the default at embedding sizes, every
 * D of EMBEDDING_DIMENSIONS with every V of EMBEDDING_ROWS, each with the parameters
 * `resolveSearchConfig` picks for its D and V (n4096 [27, 28, 28] up to D' = 256, n4096-wide
 * [30, 30, 31] from D' = 512, where [27, 28, 28] leaves a response 1–2 bits of noise
 * budget, and below it where the plan's rotations would leave none), and D = 768 with SEAL's
 * default chain too. A shape whose processed database
 * would leave the worker's heap above the server's default WORKER_HEAP_RECYCLE_BYTES is a
 * named limit, not a row: that worker would be replaced, and the database processed again
 * (minutes of a core), after every query. `--quick` keeps Apple's shape (both configs)
 * and one embedding row.
 */
export function endToEndCases(quick: boolean): EndToEndPlan {
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
  if (quick) return { cases: [...apple, embedding(10_000, 384)], limits: [] }
  const all: EndToEndCase[] = [
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
    ...EMBEDDING_ROWS.flatMap((rows) => EMBEDDING_DIMENSIONS.map((dimension) => embedding(rows, dimension))),
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
  const recycleBytes = configFor().WORKER_HEAP_RECYCLE_BYTES
  const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`
  const cases: EndToEndCase[] = []
  const limits: EndToEndLimit[] = []
  for (const c of all) {
    const bytes = processedPlaintextBytes(c)
    if (bytes <= recycleBytes) {
      cases.push(c)
      continue
    }
    limits.push({
      title: c.title,
      reason: `its processed database is ${mib(bytes)} of NTT-form plaintexts in the worker's SEAL heap, above the server's default WORKER_HEAP_RECYCLE_BYTES (${mib(recycleBytes)}): the worker would be replaced, and the database processed again, after every query`,
    })
  }
  return { cases, limits }
}

/** The cases whose client also runs in Chromium: the default at Apple's shape and at D = 16. */
export function browserCase(c: EndToEndCase): boolean {
  return Object.keys(c.env).length === 0 && (c.dimension === 16 || (c.rows === 4096 && c.dimension === 128))
}

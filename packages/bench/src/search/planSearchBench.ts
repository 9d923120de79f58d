import type { SearchConfigInput, SearchKernelChoice } from '@sealbox/he-core/search'
import type { ThroughputPlan } from './measureServerThroughput.ts'

/** The shape of Apple's published PNNS example (swift-homomorphic-encryption): V = 4096 rows, D = 128, cosine. */
export const APPLE_ROWS = 4096
export const APPLE_DIMENSION = 128

/** Which table of the report a sampled config belongs to. */
export type SearchBenchGroup = 'headline' | 'schemes' | 'tradeOff' | 'forms' | 'apple'

/** One config of the main table, sampled round-robin with all the others. */
export interface SearchBenchItem {
  group: SearchBenchGroup
  label: string
  input: SearchConfigInput
  /** A native SEAL twin (same config, keys, vectors and database) joins the round-robin. */
  native?: boolean
  /** Runs on the Apple-shaped database instead of the main one. */
  apple?: boolean
  kernel?: SearchKernelChoice
  seeded?: boolean
}

/** What `planSearchBench` needs from the command line. */
export interface SearchBenchPlanOptions {
  rows: number
  dimension: number
  /** Only the headline configs (and Apple's shape unless `withApple` is false). */
  headlineOnly: boolean
  withApple: boolean
}

/** The configs of one run: the defaults they vary and the items in report order. */
export interface SearchBenchPlan {
  defaults: SearchConfigInput
  /** D rounded up to a power of two: the largest baby step. */
  paddedDimension: number
  items: SearchBenchItem[]
}

/** Every config the main table samples: the headline rows, the schemes, the baby-step trade-off, the forms, Apple's shape. */
export function planSearchBench(options: SearchBenchPlanOptions): SearchBenchPlan {
  const { rows, dimension } = options
  const defaults: SearchConfigInput = { rows, dimension }
  const paddedDimension = 2 ** Math.ceil(Math.log2(dimension))
  const gs = [...new Set([1, 2, 4, 8, paddedDimension].filter((g) => g <= paddedDimension))]
  const items: SearchBenchItem[] = [
    { group: 'headline', label: 'default config (zstd queries and responses)', input: defaults },
    {
      group: 'headline',
      label: 'default config, uncompressed seeded queries',
      input: { ...defaults, compression: 'none', responseCompression: 'zstd' },
      native: true,
    },
    {
      // The same config with every product in SEAL: what the WebAssembly kernel saves.
      group: 'headline',
      label: "default config, uncompressed seeded queries, SEAL's evaluator",
      input: { ...defaults, compression: 'none', responseCompression: 'zstd' },
      kernel: 'seal',
    },
    {
      group: 'headline',
      label: 'default config, uncompressed queries and responses',
      input: { ...defaults, compression: 'none', responseCompression: 'none' },
    },
    {
      // Both halves of every query ciphertext: twice the upload, no seed expansion on the server.
      group: 'headline',
      label: 'default config, unseeded uncompressed queries and responses',
      input: { ...defaults, compression: 'none', responseCompression: 'none' },
      seeded: false,
      native: true,
    },
    {
      group: 'headline',
      label: 'server-side baby steps, g chosen by the model, uncompressed query',
      input: { ...defaults, babySteps: 'server', compression: 'none' },
      native: true,
    },
    {
      group: 'schemes',
      label: "BFV, client-side g = D'",
      input: { ...defaults, scheme: 'bfv', babyStep: paddedDimension },
    },
  ]
  if (!options.headlineOnly) {
    for (const scheme of ['bgv', 'bfv'] as const) {
      for (const babySteps of ['client', 'server'] as const) {
        for (const g of gs) {
          const input: SearchConfigInput = { ...defaults, scheme, babySteps, babyStep: g, compression: 'none' }
          items.push({ group: 'tradeOff', label: `${scheme} ${babySteps}-side g=${g}`, input, native: true })
          // BGV runs in he-core's kernels: the same config in SEAL's evaluator beside it, for every g.
          if (scheme === 'bgv') {
            items.push({ group: 'tradeOff', label: `${scheme} ${babySteps}-side g=${g}, SEAL`, input, kernel: 'seal' })
            // The kernel's hoisted baby steps (a key per step; SEAL's evaluator rotates alike either way).
            if (babySteps === 'server' && g > 2) {
              items.push({
                group: 'tradeOff',
                label: `${scheme} server-side hoisted g=${g}`,
                input: { ...input, hoistBabySteps: true },
              })
            }
          }
        }
      }
      items.push({
        group: 'forms',
        label: `${scheme} coefficient form`,
        input: { ...defaults, scheme, babyStep: paddedDimension, nttForm: false },
      })
    }
  }
  if (options.withApple) {
    for (const babySteps of ['client', 'server'] as const) {
      items.push({
        group: 'apple',
        label: `Apple PNNS shape, ${babySteps}-side baby steps`,
        input: { rows: APPLE_ROWS, dimension: APPLE_DIMENSION, babySteps },
        native: true,
        apple: true,
      })
    }
    // One query ciphertext: the server-side g = 8, 12, 16 beside the model's, native's best among
    // them (uncompressed, as the native wheel reads), and the model's g in SEAL's evaluator.
    const apple: SearchConfigInput = {
      rows: APPLE_ROWS,
      dimension: APPLE_DIMENSION,
      babySteps: 'server',
      compression: 'none',
    }
    items.push({ group: 'apple', label: 'Apple shape, server-side, uncompressed', input: apple, apple: true })
    items.push({
      group: 'apple',
      label: 'Apple shape, server-side hoisted, uncompressed',
      input: { ...apple, hoistBabySteps: true },
      apple: true,
    })
    items.push({
      group: 'apple',
      label: "Apple shape, server-side, uncompressed, SEAL's evaluator",
      input: apple,
      apple: true,
      kernel: 'seal',
    })
    for (const g of [8, 12, 16]) {
      items.push({
        group: 'apple',
        label: `Apple shape, server-side g=${g}, uncompressed`,
        input: { ...apple, babyStep: g },
        native: true,
        apple: true,
      })
    }
  }
  return { defaults, paddedDimension, items }
}

/** Pool servers with 1 and 2 workers, 4 and 16 clients; `--quick` keeps each row to a few seconds. */
export function throughputPlan(quick: boolean): ThroughputPlan {
  return quick
    ? { workers: [1, 2], concurrency: [4, 16], requests: 24, maxSeconds: 4, directSamples: 10 }
    : { workers: [1, 2], concurrency: [4, 16], requests: 240, maxSeconds: 15, directSamples: 60 }
}

import { resolveSearchConfig, type SearchConfigInput, type SearchKernelChoice } from '@sealbox/he-core/search'
import type { ThroughputPlan } from './measureServerThroughput.ts'
import { nativeCandidates } from './nativeCandidates.ts'

/** The shape of Apple's published PNNS example (swift-homomorphic-encryption): V = 4096 rows, D = 128, cosine. */
export const APPLE_ROWS = 4096
export const APPLE_DIMENSION = 128

/** The label of the default config at Apple's shape (the WASM side of that shape's target row). */
export const APPLE_DEFAULT_LABEL = 'Apple PNNS shape, default config'

/** Which table of the report a sampled config belongs to. */
export type SearchBenchGroup =
  | 'headline'
  | 'schemes'
  | 'tradeOff'
  | 'forms'
  | 'apple'
  | 'candidates'
  | 'appleCandidates'

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
    { group: 'headline', label: 'default config (its own wire)', input: defaults },
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
    items.push(
      {
        group: 'apple',
        label: APPLE_DEFAULT_LABEL,
        input: { rows: APPLE_ROWS, dimension: APPLE_DIMENSION },
        native: true,
        apple: true,
      },
      {
        group: 'apple',
        label: 'Apple PNNS shape, client-side baby steps',
        input: { rows: APPLE_ROWS, dimension: APPLE_DIMENSION, babySteps: 'client' },
        native: true,
        apple: true,
      },
    )
    // One query ciphertext with the model's g, hoisted, and in SEAL's evaluator (uncompressed,
    // as the native wheel reads); the g native may prefer are among its candidates below.
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
  }
  // Native's best must be native's best: every config that could be its fastest, at the main
  // shape and at Apple's, seeded and unseeded, each beside its WASM twin.
  addNativeCandidates(items, { rows, dimension }, 'candidates')
  if (options.withApple) addNativeCandidates(items, { rows: APPLE_ROWS, dimension: APPLE_DIMENSION }, 'appleCandidates')
  return { defaults, paddedDimension, items }
}

/** What makes two items the same measurement: the resolved contract, the wire, the query form, the kernel, the database. */
function itemKey(item: SearchBenchItem): string {
  const config = resolveSearchConfig(item.input)
  return [
    item.apple === true,
    config.configId,
    config.compression,
    config.responseCompression,
    config.nttForm,
    item.seeded ?? true,
    item.kernel ?? 'auto',
  ].join('|')
}

/**
 * Adds native's candidate configs (`nativeCandidates`) at one shape, uncompressed queries and
 * responses (what the native wheel reads and writes), seeded and unseeded, each with its
 * native twin; a config already planned gets its twin instead of a second item.
 */
function addNativeCandidates(
  items: SearchBenchItem[],
  shape: { rows: number; dimension: number },
  group: 'candidates' | 'appleCandidates',
): void {
  const apple = group === 'appleCandidates'
  const planned = new Map(items.map((item) => [itemKey(item), item]))
  const paddedDimension = 2 ** Math.ceil(Math.log2(shape.dimension))
  for (const { babySteps, babyStep } of nativeCandidates(paddedDimension)) {
    for (const seeded of [true, false]) {
      const item: SearchBenchItem = {
        group,
        label: `${apple ? 'Apple shape, ' : ''}${babySteps}-side g=${babyStep}, ${seeded ? 'seeded' : 'unseeded'} uncompressed`,
        input: { ...shape, babySteps, babyStep, compression: 'none', responseCompression: 'none' },
        native: true,
        ...(apple ? { apple: true } : {}),
        ...(seeded ? {} : { seeded: false }),
      }
      const same = planned.get(itemKey(item))
      if (same) {
        same.native = true
        continue
      }
      items.push(item)
      planned.set(itemKey(item), item)
    }
  }
}

/** Pool servers with 1 and 2 workers, 4 and 16 clients; `--quick` keeps each row to a few seconds. */
export function throughputPlan(quick: boolean): ThroughputPlan {
  return quick
    ? { workers: [1, 2], concurrency: [4, 16], requests: 24, maxSeconds: 4, directSamples: 10 }
    : { workers: [1, 2], concurrency: [4, 16], requests: 240, maxSeconds: 15, directSamples: 60 }
}

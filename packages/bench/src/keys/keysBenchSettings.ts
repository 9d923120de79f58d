import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'
import type { KeysBenchFlags } from './keysBenchFlags.ts'

const BENCH_DIR = fileURLToPath(new URL('../../', import.meta.url))

/** Everything `npm run benchmark:keys` can be told. */
export const KeysBenchSettingsSchema = z.object({
  /** Population sizes (users, each with their own key set). */
  users: z.array(z.number().int().positive()).min(1),
  stores: z.array(z.enum(['file', 'postgres'])).min(1),
  schedulers: z.array(z.enum(['affinity', 'round-robin'])).min(1),
  /** Run the server with its node bytes cache (the middle key tier) or without (KEY_BYTES_CACHE_BYTES=0). */
  bytesTier: z.boolean(),
  /** KEY_STORE_KERNEL_FORMS of each scenario (both: the store tier with and without kernel forms). */
  storeKernelForms: z.array(z.boolean()).min(1).default([true]),
  /** One query per user, least popular first, before a population's rounds (see keysScenario). */
  warmSweep: z.boolean().default(false),
  workers: z.number().int().min(1).max(16),
  /** Measured requests per run (and per all-hot baseline). */
  requests: z.number().int().positive(),
  /** Unrecorded requests first, so caches reach their steady state. */
  warmupRequests: z.number().int().nonnegative(),
  /** Time bound of each run's warm-up and of its measured part. */
  maxSeconds: z.number().positive(),
  /** Alternations of all-hot baseline and measured population (see keysScenario). */
  rounds: z.number().int().positive(),
  /** Requests in flight from the load generator. */
  concurrency: z.number().int().positive(),
  /** Zipf exponent of who sends the next request. */
  zipfS: z.number().nonnegative(),
  /** The key cache budget is sized so that `pressureUsers` users' keys are `pressure` × all workers' caches. */
  pressureUsers: z.number().int().positive(),
  pressure: z.number().positive(),
  /** Distinct key sets generated; larger populations re-label them per tenant. */
  distinctKeys: z.number().int().positive(),
  /** Upload → first-query samples (fresh users). */
  coldSamples: z.number().int().nonnegative(),
  rows: z.number().int().positive(),
  dimension: z.number().int().positive(),
  outDir: z.string(),
  cacheDir: z.string(),
})
export type KeysBenchSettings = z.infer<typeof KeysBenchSettingsSchema>

/** What one `npm run benchmark:keys` invocation asks for. */
export type KeysBenchCommand = { kind: 'render'; file: string } | { kind: 'run'; settings: KeysBenchSettings }

/** The run (or re-rendering) the flags ask for, with the defaults that depend on `--quick` resolved. */
export function keysBenchCommand(flags: KeysBenchFlags): KeysBenchCommand {
  if (flags.render !== undefined) return { kind: 'render', file: flags.render }
  const quick = flags.quick === true
  const settings = KeysBenchSettingsSchema.parse({
    users: flags.users ?? (quick ? [10, 100] : [10, 100, 1000]),
    stores: flags.stores,
    schedulers: flags.schedulers,
    bytesTier: flags['bytes-tier'] === 'on',
    warmSweep: flags['warm-sweep'] === 'on',
    storeKernelForms: [...new Set(flags['store-kernel-forms'])].map((value) => value === 'on'),
    workers: flags.workers,
    requests: flags.requests ?? (quick ? 120 : 400),
    warmupRequests: flags.warmup ?? (quick ? 40 : 150),
    maxSeconds: flags['max-seconds'],
    concurrency: flags.concurrency,
    rounds: flags.rounds,
    zipfS: flags.zipf,
    pressureUsers: flags['pressure-users'],
    pressure: flags.pressure,
    coldSamples: flags.cold ?? (quick ? 3 : 8),
    distinctKeys: flags['distinct-keys'],
    rows: flags.rows,
    dimension: flags.dimension,
    outDir: flags.out ?? join(BENCH_DIR, 'results', 'keys'),
    cacheDir: join(BENCH_DIR, '.cache', 'keys'),
  })
  return { kind: 'run', settings }
}

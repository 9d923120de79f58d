import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { z } from 'zod'

const BENCH_DIR = fileURLToPath(new URL('../../', import.meta.url))

/** Everything `npm run benchmark:keys` can be told. */
export const KeysBenchSettingsSchema = z.object({
  /** Population sizes (users, each with their own key set). */
  users: z.array(z.number().int().positive()).min(1),
  stores: z.array(z.enum(['file', 'postgres'])).min(1),
  schedulers: z.array(z.enum(['affinity', 'round-robin'])).min(1),
  /** Run the server with its node bytes cache (the middle key tier) or without (KEY_BYTES_CACHE_BYTES=0). */
  bytesTier: z.boolean(),
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
  /** Upload → first-query samples (fresh users). */
  coldSamples: z.number().int().nonnegative(),
  rows: z.number().int().positive(),
  dimension: z.number().int().positive(),
  outDir: z.string(),
  cacheDir: z.string(),
})
export type KeysBenchSettings = z.infer<typeof KeysBenchSettingsSchema>

export const KEYS_BENCH_HELP = `npm run benchmark:keys -- [flags]

  --users 10,100,1000        population sizes (each user has their own key set)
  --stores file,postgres     key stores to compare (postgres: a throwaway cluster from Debian's package)
  --schedulers affinity,round-robin
  --bytes-tier on|off        the node's full-form key bytes cache (default on; off = workers read the store)
  --workers N                worker threads of the server (default 2)
  --requests N               measured requests per run (default 400; --quick 120)
  --warmup N                 unrecorded requests before each run (default 150; --quick 40)
  --max-seconds S            time bound of each warm-up and measured part (default 60)
  --concurrency N            requests in flight (default 6)
  --rounds N                 baseline/measured alternations per population (default 4)
  --zipf S                   Zipf exponent (default 1.0)
  --pressure X               keys of --pressure-users users = X × all worker caches (default 4, 100 users)
  --pressure-users N
  --cold N                   upload → first query samples (default 8; --quick 3)
  --rows V --dimension D     the server's database (default 10000 × 16)
  --quick                    small run: users 10,100; fewer requests
  --out DIR                  default packages/bench/results/keys
  --render FILE.json         only re-render a previous run's report next to FILE.json
`

const list = (text: string | undefined) =>
  text
    ?.split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')

/** Reads the flags (see KEYS_BENCH_HELP); throws with the offending flag named. */
export function keysBenchSettings(argv: readonly string[]): KeysBenchSettings | 'help' {
  const { values } = parseArgs({
    args: argv.filter((arg) => arg !== '--'),
    options: {
      users: { type: 'string' },
      stores: { type: 'string' },
      schedulers: { type: 'string' },
      'bytes-tier': { type: 'string' },
      workers: { type: 'string' },
      requests: { type: 'string' },
      warmup: { type: 'string' },
      'max-seconds': { type: 'string' },
      concurrency: { type: 'string' },
      rounds: { type: 'string' },
      zipf: { type: 'string' },
      pressure: { type: 'string' },
      'pressure-users': { type: 'string' },
      cold: { type: 'string' },
      rows: { type: 'string' },
      dimension: { type: 'string' },
      quick: { type: 'boolean' },
      out: { type: 'string' },
      help: { type: 'boolean' },
    },
  })
  if (values.help) return 'help'
  const quick = values.quick === true
  const parsed = KeysBenchSettingsSchema.safeParse({
    users: (list(values.users) ?? (quick ? ['10', '100'] : ['10', '100', '1000'])).map(Number),
    stores: list(values.stores) ?? ['file', 'postgres'],
    schedulers: list(values.schedulers) ?? ['affinity', 'round-robin'],
    bytesTier: (values['bytes-tier'] ?? 'on') === 'on',
    workers: Number(values.workers ?? 2),
    requests: Number(values.requests ?? (quick ? 120 : 400)),
    warmupRequests: Number(values.warmup ?? (quick ? 40 : 150)),
    maxSeconds: Number(values['max-seconds'] ?? 60),
    concurrency: Number(values.concurrency ?? 6),
    rounds: Number(values.rounds ?? 4),
    zipfS: Number(values.zipf ?? 1),
    pressureUsers: Number(values['pressure-users'] ?? 100),
    pressure: Number(values.pressure ?? 4),
    coldSamples: Number(values.cold ?? (quick ? 3 : 8)),
    rows: Number(values.rows ?? 10_000),
    dimension: Number(values.dimension ?? 16),
    outDir: values.out ?? join(BENCH_DIR, 'results', 'keys'),
    cacheDir: join(BENCH_DIR, '.cache', 'keys'),
  })
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `--${issue.path.join('.')}: ${issue.message}`)
    throw new Error(`benchmark:keys: ${problems.join('; ')}\n\n${KEYS_BENCH_HELP}`)
  }
  return parsed.data
}

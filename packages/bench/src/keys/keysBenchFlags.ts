import { z } from 'zod'
import { defineCli } from '../core/defineCli.ts'
import { listFlagOf, numberFlag, outFlag } from '../core/flagSchemas.ts'

/**
 * The flags of `npm run benchmark:keys`; messages name the flag and say what is
 * accepted. Defaults that depend on `--quick` are resolved in `keysBenchSettings`.
 */
export const KeysBenchFlagsSchema = z
  .object({
    users: listFlagOf('population size', numberFlag('users', 1, 1_000_000))
      .optional()
      .meta({
        value: 'list',
        description: 'population sizes, each user with their own key set (default 10,100,1000; --quick 10,100)',
      }),
    stores: listFlagOf('store', z.enum(['file', 'postgres'], { error: 'stores are file, postgres' }))
      .default(['file', 'postgres'])
      .meta({
        value: 'list',
        description: "key stores to compare (postgres: a throwaway cluster from Debian's package)",
      }),
    schedulers: listFlagOf(
      'scheduler',
      z.enum(['affinity', 'round-robin'], { error: 'schedulers are affinity, round-robin' }),
    )
      .default(['affinity', 'round-robin'])
      .meta({ value: 'list', description: 'worker scheduling to compare' }),
    'bytes-tier': z
      .enum(['on', 'off'], { error: 'bytes-tier is on or off' })
      .default('on')
      .meta({ value: 'on|off', description: "the node's full-form key bytes cache (off = workers read the store)" }),
    'store-kernel-forms': listFlagOf(
      'store-kernel-forms',
      z.enum(['on', 'off'], { error: 'store-kernel-forms are on, off' }),
    )
      .default(['on'])
      .meta({
        value: 'list',
        description:
          "the key store keeps each upload's kernel form (KEY_STORE_KERNEL_FORMS); on,off runs both, so a store-tier miss is compared in one run",
      }),
    'warm-sweep': z.enum(['on', 'off'], { error: 'warm-sweep is on or off' }).default('off').meta({
      value: 'on|off',
      description:
        "before each population's rounds, one query from every user, least popular first (the steady state of a node that has served them)",
    }),
    workers: numberFlag('workers', 1, 16).default(2).meta({ value: 'N', description: 'worker threads of the server' }),
    requests: numberFlag('requests', 1, 10_000_000)
      .optional()
      .meta({ value: 'N', description: 'measured requests per run (default 400; --quick 120)' }),
    warmup: numberFlag('warmup', 0, 10_000_000)
      .optional()
      .meta({ value: 'N', description: 'unrecorded requests before each run (default 150; --quick 40)' }),
    'max-seconds': numberFlag('max-seconds', 0.001, 86_400, { whole: false })
      .default(60)
      .meta({ value: 'S', description: 'time bound of each warm-up and measured part' }),
    concurrency: numberFlag('concurrency', 1, 10_000)
      .default(6)
      .meta({ value: 'N', description: 'requests in flight' }),
    rounds: numberFlag('rounds', 1, 1000)
      .default(4)
      .meta({ value: 'N', description: 'baseline/measured alternations per population' }),
    zipf: numberFlag('zipf', 0, 100, { whole: false })
      .default(1)
      .meta({ value: 'S', description: 'Zipf exponent of who sends next' }),
    pressure: numberFlag('pressure', 0.001, 1_000_000, { whole: false })
      .default(4)
      .meta({ value: 'X', description: 'keys of --pressure-users users = X × all worker caches' }),
    'pressure-users': numberFlag('pressure-users', 1, 1_000_000)
      .default(100)
      .meta({ value: 'N', description: 'the population --pressure is sized for' }),
    cold: numberFlag('cold', 0, 100_000)
      .optional()
      .meta({ value: 'N', description: 'upload → first query samples (default 8; --quick 3)' }),
    'distinct-keys': numberFlag('distinct-keys', 1, 1_000_000).default(1000).meta({
      value: 'N',
      description: 'key sets generated; user i uploads set i mod N under its own tenant (synthetic large populations)',
    }),
    rows: numberFlag('rows', 1, 10_000_000)
      .default(10_000)
      .meta({ value: 'V', description: "the server's database rows" }),
    dimension: numberFlag('dimension', 1, 4096)
      .default(16)
      .meta({ value: 'D', description: "the server's database vector dimension" }),
    quick: z.boolean().optional().describe('small run: users 10,100; fewer requests'),
    out: outFlag('output directory (default packages/bench/results/keys)'),
    render: z
      .string()
      .min(1)
      .optional()
      .meta({ value: 'file.json', description: "only re-render a previous run's report next to that JSON file" }),
  })
  .strict()
export type KeysBenchFlags = z.infer<typeof KeysBenchFlagsSchema>

/** The command line of `npm run benchmark:keys`. */
export const KEYS_BENCH_CLI = defineCli({ command: 'npm run benchmark:keys --', flags: KeysBenchFlagsSchema })

import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { KeysBenchFlags } from './keysBenchFlags.ts'

const BENCH_DIR = fileURLToPath(new URL('../../', import.meta.url))

/**
 * Everything `npm run benchmark:keys` was told, with the defaults that depend on `--quick`
 * resolved (written to the report as `settings`; each flag's help says what it means).
 */
function keysBenchSettings(flags: KeysBenchFlags) {
  const quick = flags.quick === true
  return {
    /** Population sizes (users, each with their own key set). */
    users: flags.users ?? (quick ? [10, 100] : [10, 100, 1000]),
    stores: flags.stores,
    schedulers: flags.schedulers,
    /** The node bytes cache (the middle key tier), or none (KEY_BYTES_CACHE_BYTES=0). */
    bytesTier: flags['bytes-tier'] === 'on',
    /** KEY_STORE_KERNEL_FORMS of each scenario (both: the store tier with and without kernel forms). */
    storeKernelForms: [...new Set(flags['store-kernel-forms'])].map((value) => value === 'on'),
    /** One query per user, least popular first, before a population's rounds (see keysScenario). */
    warmSweep: flags['warm-sweep'] === 'on',
    workers: flags.workers,
    /** Measured requests per run (and per all-hot baseline). */
    requests: flags.requests ?? (quick ? 120 : 400),
    /** Unrecorded requests first, so caches reach their steady state. */
    warmupRequests: flags.warmup ?? (quick ? 40 : 150),
    /** Time bound of each run's warm-up and of its measured part. */
    maxSeconds: flags['max-seconds'],
    /** Alternations of all-hot baseline and measured population (see keysScenario). */
    rounds: flags.rounds,
    concurrency: flags.concurrency,
    zipfS: flags.zipf,
    /** The key cache budget is sized so that `pressureUsers` users' keys are `pressure` × all workers' caches. */
    pressureUsers: flags['pressure-users'],
    pressure: flags.pressure,
    /** Distinct key sets generated; larger populations re-label them per tenant. */
    distinctKeys: flags['distinct-keys'],
    coldSamples: flags.cold ?? (quick ? 3 : 8),
    rows: flags.rows,
    dimension: flags.dimension,
    outDir: flags.out ?? join(BENCH_DIR, 'results', 'keys'),
    cacheDir: join(BENCH_DIR, '.cache', 'keys'),
  }
}
export type KeysBenchSettings = ReturnType<typeof keysBenchSettings>

/** What one `npm run benchmark:keys` invocation asks for. */
export type KeysBenchCommand = { kind: 'render'; file: string } | { kind: 'run'; settings: KeysBenchSettings }

/** The run (or re-rendering) the flags ask for, with the defaults that depend on `--quick` resolved. */
export function keysBenchCommand(flags: KeysBenchFlags): KeysBenchCommand {
  return flags.render === undefined
    ? { kind: 'run', settings: keysBenchSettings(flags) }
    : { kind: 'render', file: flags.render }
}

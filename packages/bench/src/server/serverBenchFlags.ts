import { fileURLToPath } from 'node:url'
import { z } from 'zod'
import { BenchError } from '../BenchError.ts'
import { defineCli } from '../core/defineCli.ts'
import { listFlag, numberFlag, outFlag } from '../core/flagSchemas.ts'
import { WORKLOADS, type Workload } from '../load/PreparedWorkload.ts'

/** Where a row runs its HE work. */
export type RowSpec =
  | { id: 'direct'; kind: 'direct'; label: string }
  | { id: string; kind: 'server'; executor: 'inline' | 'pool' | 'process'; workers: number; label: string }

/** The table's rows in their default order. */
export const DEFAULT_ROWS = ['direct', 'inline', 'pool-1', 'pool-2', 'process-1'] as const

const ROW_PATTERN = /^(direct|inline|(pool|process)-([1-9]|1[0-6]))$/

/** The row a `--rows` id names (`direct`, `inline`, `pool-N`, `process-N`). */
export function rowSpec(id: string): RowSpec {
  if (id === 'direct') return { id, kind: 'direct', label: 'Direct (he-core in-process, no server)' }
  if (id === 'inline') return { id, kind: 'server', executor: 'inline', workers: 1, label: 'Fastify `inline`' }
  const match = ROW_PATTERN.exec(id)
  const executor = match?.[2]
  if (executor !== 'pool' && executor !== 'process') throw new BenchError('INVALID_FLAGS', `not a row id: ${id}`)
  const workers = Number(match?.[3])
  const unit = executor === 'pool' ? 'thread' : 'child process'
  const plural = workers === 1 ? unit : unit === 'thread' ? 'threads' : 'child processes'
  return { id, kind: 'server', executor, workers, label: `Fastify \`${executor}\` (${workers} ${plural})` }
}

/**
 * The flags of `npm run benchmark:server`; messages name the flag and say what is
 * accepted. Defaults that depend on `--quick` are resolved in `resolveServerBenchSettings`.
 */
export const ServerBenchFlagsSchema = z
  .object({
    rows: listFlag('row')
      .refine(
        (items) => items.every((item) => ROW_PATTERN.test(item)),
        'rows are direct, inline, pool-N or process-N (N = 1…16)',
      )
      .transform((items) => [...new Set(items)])
      .optional()
      .meta({
        value: 'list',
        description: `rows: direct, inline, pool-N, process-N (default: ${DEFAULT_ROWS.join(',')})`,
      }),
    workloads: listFlag('workload')
      .refine(
        (items) => items.every((item) => (WORKLOADS as readonly string[]).includes(item)),
        `workloads are ${WORKLOADS.join(', ')}`,
      )
      .transform((items) => WORKLOADS.filter((w) => items.includes(w)))
      .optional()
      .meta({ value: 'list', description: `${WORKLOADS.join(',')} (default: all three; --quick: search,program)` }),
    concurrency: listFlag('concurrency')
      .refine(
        (items) => items.every((item) => /^\d+$/.test(item) && Number(item) >= 1 && Number(item) <= 64),
        'concurrency levels are whole numbers from 1 to 64',
      )
      .transform((items) => [...new Set(items.map(Number))].sort((a, b) => a - b))
      .optional()
      .meta({ value: 'list', description: 'clients in flight per cell (default 1,4,16; --quick: 1,4)' }),
    requests: numberFlag('requests', 1, 100_000)
      .optional()
      .meta({ value: 'count', description: 'measured requests per cell, at most (default 200; --quick: 10)' }),
    duration: z.coerce
      .number({ error: 'duration must be a number of seconds' })
      .min(0.2, 'duration must be at least 0.2 s')
      .max(600, 'duration must be at most 600 s')
      .optional()
      .meta({ value: 'seconds', description: 'measured time per cell, at most (default 5; --quick: 1)' }),
    repeats: numberFlag('repeats', 1, 20)
      .optional()
      .meta({ value: 'count', description: 'runs of every cell; medians are reported (default 3; --quick: 1)' }),
    'probe-hz': z.coerce
      .number({ error: 'probe-hz must be a number' })
      .min(1, 'probe-hz must be at least 1')
      .max(200, 'probe-hz must be at most 200')
      .optional()
      .meta({ value: 'rate', description: '/healthz probes per second, per connection kind (default 20)' }),
    'cost-flood': z.coerce
      .number({ error: 'cost-flood must be a number of seconds' })
      .min(0, 'cost-flood must be at least 0 (0 skips it)')
      .max(600, 'cost-flood must be at most 600 s')
      .optional()
      .meta({
        value: 'seconds',
        description:
          "another tenant's search latency while one tenant floods maximum-cost programs, for this long (default 30; --quick: 3; 0: skip)",
      }),
    quick: z.boolean().optional().describe('few requests, concurrency 1 and 4, one run: a shape check for tests'),
    out: outFlag('where to write server.{md,json,html} (default results/server, --quick: results/tmp/server-quick)'),
  })
  .strict()
export type ServerBenchFlags = z.infer<typeof ServerBenchFlagsSchema>

/** The command line of `npm run benchmark:server`. */
export const SERVER_BENCH_CLI = defineCli({ command: 'npm run benchmark:server --', flags: ServerBenchFlagsSchema })

/** The package's results folder for this table. */
export const SERVER_RESULTS_DIR = fileURLToPath(new URL('../../results/server/', import.meta.url))
const QUICK_RESULTS_DIR = fileURLToPath(new URL('../../results/tmp/server-quick/', import.meta.url))

/** Everything one run does: the defaults (full or `--quick`) under the explicit flags. */
export function resolveServerBenchSettings(flags: ServerBenchFlags) {
  const quick = flags.quick === true
  return {
    rows: (flags.rows ?? [...DEFAULT_ROWS]).map(rowSpec),
    workloads: flags.workloads ?? ((quick ? ['search', 'program'] : [...WORKLOADS]) satisfies Workload[]),
    concurrency: flags.concurrency ?? (quick ? [1, 4] : [1, 4, 16]),
    /** Measured requests per cell, at most. */
    requests: flags.requests ?? (quick ? 10 : 200),
    /** Measured seconds per cell, at most. */
    durationSeconds: flags.duration ?? (quick ? 1 : 5),
    repeats: flags.repeats ?? (quick ? 1 : 3),
    /** Probes per second per connection kind (fresh and keep-alive). */
    probeHz: flags['probe-hz'] ?? 20,
    /** Quiet time with the prober running before the first cell of each server (idle baseline). */
    idleMs: quick ? 300 : 1500,
    /** Seconds of the cost-fairness scenario (needs the search workload; 0 skips it). */
    costFloodSeconds: flags['cost-flood'] ?? (quick ? 3 : 30),
    quick,
    outDir: flags.out ?? (quick ? QUICK_RESULTS_DIR : SERVER_RESULTS_DIR),
  }
}
export type ServerBenchSettings = ReturnType<typeof resolveServerBenchSettings>

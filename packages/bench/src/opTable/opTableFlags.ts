import { z } from 'zod'
import { BenchError } from '../BenchError.ts'
import { defineCli } from '../core/defineCli.ts'
import { listFlag, numberFlag, outFlag } from '../core/flagSchemas.ts'
import { ENGINE_IDS, type EngineId } from '../engines/BenchEngine.ts'
import { ALL_NS } from '../harness/benchParameters.ts'
import { OP_CATALOG } from '../harness/opCatalog.ts'

/**
 * The flags of `npm run benchmark`; messages name the flag and say what is accepted.
 * Defaults that depend on `--quick` are resolved in `resolveOpTableSettings`.
 */
export const OpTableFlagsSchema = z
  .object({
    engines: listFlag('engine')
      .refine(
        (items) => items.every((item) => item === 'all' || (ENGINE_IDS as readonly string[]).includes(item)),
        `engines are ${ENGINE_IDS.join(', ')} (or all)`,
      )
      .transform((items) => (items.includes('all') ? [...ENGINE_IDS] : (items as EngineId[])))
      .optional()
      .meta({ value: 'list', description: `columns to run: ${ENGINE_IDS.join(',')} (default: all)` }),
    n: listFlag('n')
      .refine(
        (items) => items.every((item) => ALL_NS.includes(Number(item))),
        `n must be among ${ALL_NS.join(', ')} (SEAL's default coeff modulus exists only for those)`,
      )
      .transform((items) => [...new Set(items.map(Number))].sort((a, b) => a - b))
      .optional()
      .meta({ value: 'list', description: `poly modulus degrees: ${ALL_NS.join(',')} (default: all)` }),
    ops: listFlag('op').optional().meta({
      value: 'list',
      description:
        'rows: ids (BFV/EvaluateMulCt), groups (BFV, KeyGen, Setup), op names (EvaluateMulCt), "published" or "all"',
    }),
    iterations: numberFlag('iterations', 1, 10_000)
      .optional()
      .meta({ value: 'count', description: 'calls per timed sample, like sealbench (default 10; cheap ops get more)' }),
    repeats: numberFlag('repeats', 1, 1_000)
      .optional()
      .meta({ value: 'count', description: 'timed samples per cell; median and min are reported (default 5)' }),
    'warmup-ms': z.coerce
      .number({ error: 'warmup-ms must be a number' })
      .min(0, 'warmup-ms must be 0 or more')
      .max(600_000, 'warmup-ms must be at most 600000')
      .optional()
      .meta({ value: 'ms', description: "engine warm-up before the first cell (default 8000; WebKit's JIT needs it)" }),
    schedule: z
      .enum(['interleaved', 'sequential'], { error: 'schedule is interleaved or sequential' })
      .optional()
      .meta({
        value: 'mode',
        description: 'interleaved (default: all engines time each cell in turn, fair on a busy machine) or sequential',
      }),
    quick: z.boolean().optional().describe('n=4096 and a handful of ops, few samples: a ~1 minute shape check (CI)'),
    out: outFlag('folder for operations.{md,json,html} (default packages/bench/results/, quick: results/tmp/quick/)'),
    'install-browsers': z
      .boolean()
      .optional()
      .describe('apt-get install the missing Debian browsers first (root or passwordless sudo)'),
    seed: z.coerce
      .number({ error: 'seed must be a number' })
      .int('seed must be a whole number')
      .optional()
      .meta({ value: 'int', description: 'seed of the input messages (default 1)' }),
  })
  .strict()
export type OpTableFlags = z.infer<typeof OpTableFlagsSchema>

/** The command line of `npm run benchmark`. */
export const OP_TABLE_CLI = defineCli({ command: 'npm run benchmark --', flags: OpTableFlagsSchema })

const GROUPS = [...new Set(OP_CATALOG.map((spec) => spec.group))]

/**
 * Resolves `--ops` patterns to catalog ids (catalog order). Each pattern must match
 * something: an id, a group, `Group/*`, an op name across groups, `published`, `all`.
 */
export function selectOps(patterns: readonly string[], publishedIds: ReadonlySet<string>): string[] {
  const chosen = new Set<string>()
  for (const pattern of patterns) {
    const matches = OP_CATALOG.filter((spec) => {
      if (pattern === 'all') return true
      if (pattern === 'published') return publishedIds.has(spec.id)
      if (pattern === spec.id || pattern === spec.group || pattern === `${spec.group}/*`) return true
      return pattern === spec.op
    })
    if (matches.length === 0) {
      throw new BenchError(
        'INVALID_FLAGS',
        `--ops: "${pattern}" matches no row; use an id like BFV/EvaluateMulCt, a group (${GROUPS.join(', ')}), an op name, published or all`,
      )
    }
    for (const spec of matches) chosen.add(spec.id)
  }
  return OP_CATALOG.filter((spec) => chosen.has(spec.id)).map((spec) => spec.id)
}

import { z } from 'zod'
import { BenchError } from '../BenchError.ts'
import type { FlagSpec } from '../cli/parseFlags.ts'
import { ENGINE_IDS, type EngineId } from '../engines/BenchEngine.ts'
import { ALL_NS } from '../harness/benchParameters.ts'
import { OP_CATALOG } from '../harness/opCatalog.ts'

/** The flags of `npm run benchmark`. */
export const OP_TABLE_FLAGS: readonly FlagSpec[] = [
  { name: 'engines', value: 'list', help: `columns to run: ${ENGINE_IDS.join(',')} (default: all)` },
  { name: 'n', value: 'list', help: `poly modulus degrees: ${ALL_NS.join(',')} (default: all)` },
  {
    name: 'ops',
    value: 'list',
    help: 'rows: ids (BFV/EvaluateMulCt), groups (BFV, KeyGen, Setup), op names (EvaluateMulCt), "published" or "all"',
  },
  {
    name: 'iterations',
    value: 'count',
    help: 'calls per timed sample, like sealbench (default 10; cheap ops get more)',
  },
  { name: 'repeats', value: 'count', help: 'timed samples per cell; median and min are reported (default 5)' },
  {
    name: 'warmup-ms',
    value: 'ms',
    help: "engine warm-up before the first cell (default 8000; WebKit's JIT needs it)",
  },
  {
    name: 'schedule',
    value: 'mode',
    help: 'interleaved (default: all engines time each cell in turn, fair on a busy machine) or sequential',
  },
  { name: 'quick', help: 'n=4096 and a handful of ops, few samples: a ~1 minute shape check (CI)' },
  {
    name: 'out',
    value: 'dir',
    help: 'folder for operations.{md,json,html} (default packages/bench/results/, quick: results/tmp/quick/)',
  },
  { name: 'install-browsers', help: 'apt-get install the missing Debian browsers first (root or passwordless sudo)' },
  { name: 'seed', value: 'int', help: 'seed of the input messages (default 1)' },
  { name: 'help', help: 'print this help' },
]

const list = (what: string) =>
  z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean),
    )
    .refine((items) => items.length > 0, `give at least one ${what}`)

const count = (name: string, max: number) =>
  z.coerce
    .number({ error: `${name} must be a number` })
    .int(`${name} must be a whole number`)
    .min(1, `${name} must be at least 1`)
    .max(max, `${name} must be at most ${max}`)

/** Validates the raw flags; messages name the flag and say what is accepted. */
export const OpTableFlagsSchema = z
  .object({
    engines: list('engine')
      .refine(
        (items) => items.every((item) => item === 'all' || (ENGINE_IDS as readonly string[]).includes(item)),
        `engines are ${ENGINE_IDS.join(', ')} (or all)`,
      )
      .transform((items) => (items.includes('all') ? [...ENGINE_IDS] : (items as EngineId[])))
      .optional(),
    n: list('n')
      .refine(
        (items) => items.every((item) => ALL_NS.includes(Number(item))),
        `n must be among ${ALL_NS.join(', ')} (SEAL's default coeff modulus exists only for those)`,
      )
      .transform((items) => [...new Set(items.map(Number))].sort((a, b) => a - b))
      .optional(),
    ops: list('op').optional(),
    iterations: count('iterations', 10_000).optional(),
    repeats: count('repeats', 1_000).optional(),
    'warmup-ms': z.coerce
      .number({ error: 'warmup-ms must be a number' })
      .min(0, 'warmup-ms must be 0 or more')
      .max(600_000, 'warmup-ms must be at most 600000')
      .optional(),
    schedule: z.enum(['interleaved', 'sequential'], { error: 'schedule is interleaved or sequential' }).optional(),
    quick: z.boolean().optional(),
    out: z.string().min(1).optional(),
    'install-browsers': z.boolean().optional(),
    seed: z.coerce.number({ error: 'seed must be a number' }).int('seed must be a whole number').optional(),
    help: z.boolean().optional(),
  })
  .strict()
export type OpTableFlags = z.infer<typeof OpTableFlagsSchema>

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

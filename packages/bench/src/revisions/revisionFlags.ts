import { z } from 'zod'
import { BenchError } from '../BenchError.ts'
import { defineCli } from '../core/defineCli.ts'
import { numberFlag, outFlag } from '../core/flagSchemas.ts'

const SHAPE = /^\d+x\d+$/

/** The flags of `pnpm --filter @sealbox/bench benchmark:revisions`. */
export const RevisionFlagsSchema = z
  .object({
    before: z.string().min(1).meta({ value: 'dir', description: 'checkout of the earlier revision (a worktree)' }),
    after: z
      .string()
      .min(1)
      .optional()
      .meta({ value: 'dir', description: 'checkout of the later revision (default: this checkout)' }),
    shapes: z
      .string()
      .regex(/^\d+x\d+(,\d+x\d+)*$/, 'shapes: a comma-separated list of VxD, e.g. 10000x16,4096x128')
      .default('10000x16,4096x128,100000x16')
      .meta({
        value: 'list',
        description: 'shapes V×D whose default config is timed (default 10000x16,4096x128,100000x16)',
      }),
    rounds: numberFlag('rounds', 1, 100)
      .default(5)
      .meta({ value: 'N', description: 'before/after pairs per shape, alternating which goes first' }),
    samples: numberFlag('samples', 1, 10_000).default(20).meta({ value: 'N', description: 'timed queries per child' }),
    warmup: numberFlag('warmup', 0, 1000).default(3).meta({ value: 'N', description: 'warm-up queries per child' }),
    out: outFlag('output directory (default packages/bench/results/search)'),
  })
  .strict()

/** Parses `10000x16` into rows and dimension (the flag's regex has checked the form). */
export function parseShape(text: string): { rows: number; dimension: number } {
  if (!SHAPE.test(text)) throw new BenchError('INVALID_FLAGS', `shape ${text}: write it as VxD, e.g. 10000x16`)
  const [rows, dimension] = text.split('x').map(Number) as [number, number]
  return { rows, dimension }
}

export const REVISIONS_CLI = defineCli({
  command: 'pnpm --filter @sealbox/bench benchmark:revisions --',
  summary:
    "Times the search's default config at several shapes with two checkouts' he-core (before and after a change), each in its own child process, alternating them round by round; reports each side's median server total and CPU, the paired after ÷ before ratios, exactness and the load average. Writes search-before-after.{md,json}.",
  flags: RevisionFlagsSchema,
})

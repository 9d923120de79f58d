import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { z } from 'zod'
import { BenchError } from '../BenchError.ts'
import { measureNodeSizing, type SizingShape } from './measureNodeSizing.ts'

/*
 * `pnpm --filter @sealbox/bench benchmark:sizing -- --shape 10000x16 --shape 10000x384`:
 * the per-node figures of deploy/README.md's Sizing section — warm-up, a fresh worker's
 * heap, RSS and searches per second of one worker — for each synthetic database shape,
 * printed as a Markdown table with the machine's load average (these are lower bounds on
 * a busy machine).
 */

const FlagsSchema = z.object({
  shape: z
    .array(z.string().regex(/^\d+x\d+$/, '--shape is <rows>x<dimension>, e.g. 10000x384'))
    .min(1, 'give at least one --shape <rows>x<dimension>'),
  seconds: z.coerce.number().positive().default(15),
  'in-flight': z.coerce.number().int().min(1).max(64).default(2),
})

const { values } = parseArgs({
  // pnpm passes its `--` separator on.
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    shape: { type: 'string', multiple: true },
    seconds: { type: 'string' },
    'in-flight': { type: 'string' },
  },
  strict: true,
})
const parsed = FlagsSchema.safeParse(values)
if (!parsed.success) {
  throw new BenchError('INVALID_FLAGS', parsed.error.issues.map((issue) => issue.message).join('; '))
}
const flags = parsed.data
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1)
const rows = [
  '| V × D | warm-up | ready | fresh worker heap | node RSS | searches/s (1 worker) |',
  '|---|---|---|---|---|---|',
]
for (const text of flags.shape) {
  const [rowCount, dimension] = text.split('x').map(Number) as [number, number]
  const shape: SizingShape = { rows: rowCount, dimension }
  const m = await measureNodeSizing(shape, { seconds: flags.seconds, inFlight: flags['in-flight'] })
  const row = `| ${m.rows} × ${m.dimension} | ${(m.warmMs / 1000).toFixed(1)} s | ${(m.readyMs / 1000).toFixed(1)} s | ${mib(m.freshHeapBytes)} MiB | ${mib(m.rssBytes)} MiB | ${m.searchesPerSecond.toFixed(2)} (${m.searches} in ${flags.seconds} s, ${flags['in-flight']} in flight) |`
  rows.push(row)
  process.stderr.write(`${row}\n`)
}
process.stdout.write(
  `${rows.join('\n')}\n\nload average after the run: ${loadavg()
    .map((n) => n.toFixed(1))
    .join(', ')}\n`,
)

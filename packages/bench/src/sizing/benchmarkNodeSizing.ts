import { loadavg } from 'node:os'
import { z } from 'zod'
import { defineCli, runProgram } from '../core/defineCli.ts'
import { numberFlag } from '../core/flagSchemas.ts'
import { measureNodeSizing, type SizingShape } from './measureNodeSizing.ts'

/*
 * `pnpm --filter @sealbox/bench benchmark:sizing -- --shape 10000x16 --shape 10000x384`:
 * the per-node figures of deploy/README.md's Sizing section — warm-up, a fresh worker's
 * heap, RSS and searches per second of one worker — for each synthetic database shape,
 * printed as a Markdown table with the machine's load average (these are lower bounds on
 * a busy machine).
 */

const SIZING_CLI = defineCli({
  command: 'pnpm --filter @sealbox/bench benchmark:sizing --',
  summary:
    "The per-node figures of deploy/README.md's Sizing section for each synthetic database shape, as a Markdown table on stdout.",
  flags: z
    .object({
      shape: z
        .array(z.string().regex(/^\d+x\d+$/, '--shape is <rows>x<dimension>, e.g. 10000x384'))
        .min(1, 'give at least one --shape <rows>x<dimension>')
        .meta({ value: 'rows>x<dimension' })
        .describe('a synthetic database shape'),
      seconds: numberFlag('seconds', 0, 86_400, { whole: false })
        .refine((seconds) => seconds > 0, 'seconds must be above 0')
        .default(15)
        .describe('how long one worker is kept searching per shape'),
      'in-flight': numberFlag('in-flight', 1, 64).default(2).describe('searches in flight at once'),
    })
    .strict(),
})

runProgram('benchmark:sizing', SIZING_CLI, async (flags) => {
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
})

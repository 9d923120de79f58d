/**
 * `pnpm --filter @sealbox/bench benchmark:scale-recall`: recall@10 of the search's integer
 * scores against float cosine as a function of the scale s (the plain modulus's bits), on the
 * million bench's clustered data at each V (`measureScaleRecall`). Plaintext only: it says
 * which t cluster-private search needs for its recall target. Writes scale-recall.{md,json}
 * into --out (default packages/bench/results/search/).
 */
import { join } from 'node:path'
import process from 'node:process'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'
import { commandLine, defineCli, runProgram } from '../core/defineCli.ts'
import { listFlagOf, numberFlag } from '../core/flagSchemas.ts'
import { loadAverage } from '../core/machineInfo.ts'
import { writeStampedReport } from '../core/writeReportFiles.ts'
import { measureScaleRecall, renderScaleRecall } from './measureScaleRecall.ts'

const OUT = fileURLToPath(new URL('../../results/search/', import.meta.url))
const log = (line: string) => process.stderr.write(`${line}\n`)

const ScaleRecallFlagsSchema = z
  .object({
    rows: listFlagOf('row count', numberFlag('rows', 100, 1_000_000))
      .default([100_000, 1_000_000])
      .meta({ value: 'V,…', description: 'row counts of the bench data' }),
    queries: numberFlag('queries', 1, 10_000).default(100).meta({
      value: 'N',
      description: "queries drawn like the million bench's (its first --bench-queries are the bench's own)",
    }),
    'bench-queries': numberFlag('bench-queries', 1, 10_000)
      .default(10)
      .meta({ value: 'N', description: "the million bench's --samples, reported on their own" }),
    bits: listFlagOf('bit count', numberFlag('bits', 12, 31))
      .default([17, 18, 19, 20, 21, 22])
      .meta({ value: 'b,…', description: 'bits of the batching prime t; s is the largest t allows at D = 384' }),
    scales: listFlagOf('scale', numberFlag('scales', 1, 1_000_000))
      .optional()
      .meta({ value: 's,…', description: 'more scales to study, given directly' }),
    probe: z
      .boolean()
      .optional()
      .describe(
        'also cluster each V as SEARCH_CLUSTERS=auto does and score the nearest cluster only (cluster-private recall)',
      ),
    out: z.string().min(1).optional().meta({ value: 'DIR', description: 'where scale-recall.{md,json} go' }),
  })
  .strict()

const SCALE_RECALL_CLI = defineCli({
  command: 'pnpm --filter @sealbox/bench benchmark:scale-recall --',
  summary:
    "Recall@10 of the search's integer scores against float cosine by scale s (t's bits), on the million bench's clustered data (D = 384). Plaintext only. Writes scale-recall.{md,json} into --out (default packages/bench/results/search/).",
  flags: ScaleRecallFlagsSchema,
})

runProgram('benchmark:scale-recall', SCALE_RECALL_CLI, async (flags, argv) => {
  const loadBefore = loadAverage()
  const report = measureScaleRecall({
    rows: flags.rows,
    dimension: 384,
    queries: flags.queries,
    benchQueries: Math.min(flags['bench-queries'], flags.queries),
    plainBits: flags.bits,
    ...(flags.scales ? { scales: flags.scales } : {}),
    ...(flags.probe ? { probe: true } : {}),
    log,
  })
  const command = commandLine('pnpm --filter @sealbox/bench benchmark:scale-recall', argv)
  const out = flags.out ?? OUT
  const markdown = await writeStampedReport({
    markdownPath: join(out, 'scale-recall.md'),
    jsonPath: join(out, 'scale-recall.json'),
    markdown: renderScaleRecall(report, command),
    json: { command, date: new Date().toISOString(), load: { before: loadBefore, after: loadAverage() }, ...report },
  })
  process.stdout.write(markdown)
})

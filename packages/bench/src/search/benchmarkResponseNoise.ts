/**
 * `pnpm --filter @sealbox/bench benchmark:response-noise`: SEAL's noise budget left in search
 * responses at D = 384 for today's t and larger batching primes, exact and cluster-private
 * layouts, two coefficient moduli (`measureResponseNoise`). Writes response-noise.{md,json}
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
import {
  defaultResponseNoiseCases,
  measureResponseNoise,
  type ResponseNoiseRow,
  renderResponseNoise,
} from './measureResponseNoise.ts'

const OUT = fileURLToPath(new URL('../../results/search/', import.meta.url))
const log = (line: string) => process.stderr.write(`${line}\n`)

const ResponseNoiseFlagsSchema = z
  .object({
    bits: listFlagOf('bit count', numberFlag('bits', 17, 31))
      .default([18, 19, 20, 21])
      .meta({ value: 'b,…', description: 'bits of the batching primes t measured beside 65537' }),
    primes: z
      .enum(['30', '31', 'both'])
      .default('both')
      .meta({ value: 'P', description: 'coefficient moduli: 30 = [30, 30, 31], 31 = [31, 31, 31] or both' }),
    layouts: z
      .enum(['exact', 'cluster-private', 'both'])
      .default('both')
      .meta({ value: 'L', description: 'exact, cluster-private or both' }),
    queries: numberFlag('queries', 1, 100).default(3).meta({ value: 'N', description: 'queries per case' }),
    out: z.string().min(1).optional().meta({ value: 'DIR', description: 'where response-noise.{md,json} go' }),
  })
  .strict()

const RESPONSE_NOISE_CLI = defineCli({
  command: 'pnpm --filter @sealbox/bench benchmark:response-noise --',
  summary:
    "SEAL's noise budget left in search responses (D = 384, n = 4096, BGV) for t = 65537 and larger batching primes, exact and cluster-private (the million bench's C = 16, g = 128) layouts, with the dropped-bits rule's bound. Writes response-noise.{md,json} into --out (default packages/bench/results/search/).",
  flags: ResponseNoiseFlagsSchema,
})

runProgram('benchmark:response-noise', RESPONSE_NOISE_CLI, async (flags, argv) => {
  const loadBefore = loadAverage()
  const cases = defaultResponseNoiseCases(flags.bits).filter(
    (c) =>
      (flags.primes === 'both' || c.coeffModulusBits[0] === Number(flags.primes)) &&
      (flags.layouts === 'both' || c.layout === flags.layouts),
  )
  const command = commandLine('pnpm --filter @sealbox/bench benchmark:response-noise', argv)
  const out = flags.out ?? OUT
  const rows: ResponseNoiseRow[] = []
  for (const c of cases) {
    log(
      `response noise: ${c.layout} [${c.coeffModulusBits.join(', ')}] t=${c.plainModulus}${c.hoisted ? ' hoisted' : ''}`,
    )
    const row = await measureResponseNoise(c, flags.queries)
    log(
      `  budget ${row.budgetFull.min}–${row.budgetFull.max} bits (dropped: ${row.budgetDropped.min}), rule ${row.droppedBits.join(',')}, exact ${row.exact}`,
    )
    rows.push(row)
    // Written after each case: a long run keeps what it measured.
    await writeStampedReport({
      markdownPath: join(out, 'response-noise.md'),
      jsonPath: join(out, 'response-noise.json'),
      markdown: renderResponseNoise(rows, command),
      json: { command, date: new Date().toISOString(), load: { before: loadBefore, after: loadAverage() }, rows },
    })
  }
  process.stdout.write(renderResponseNoise(rows, command))
})

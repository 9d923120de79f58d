import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { loadSeal } from '@sealbox/he-core'
import { z } from 'zod'
import { BenchError } from '../BenchError.ts'
import { measureBgvChains } from './measureBgvChains.ts'
import { measureSquaringGain } from './measureSquaringGain.ts'

/*
 * `pnpm --filter @sealbox/bench benchmark:bgv-chains -- --depth 8 --plain-bits 25 --chains 500`:
 * runs the chain a BGV suggestion promises (depth × square, relinearize, mod-switch), each
 * under a fresh key set, and prints one Markdown row: the parameters, failures out of
 * chains (`--seconds`: as many as fit), and the spread of the noise budget left after the last square (the margin the
 * rule in he-core's suggestParams.ts keeps). Results: packages/bench/results/bgv-chains.md.
 *
 * `-- --gain-keys 1000 --n 8192 --plain-bits 20`: instead, how one square's noise spreads
 * over key sets (what the chain's level primes must hold), as a histogram.
 */

const FlagsSchema = z.object({
  depth: z.coerce.number().int().min(0).max(30).optional(),
  'gain-keys': z.coerce.number().int().min(1).optional(),
  n: z.coerce.number().int().min(1024).max(32768).default(32768),
  'plain-bits': z.coerce.number().int().min(13).max(60),
  chains: z.coerce.number().int().min(1).default(100),
  /** Start no chain after this many seconds (a busy machine: report what was run). */
  seconds: z.coerce.number().positive().optional(),
  security: z.enum(['tc128', 'tc192', 'tc256']).default('tc128'),
})

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    depth: { type: 'string' },
    'gain-keys': { type: 'string' },
    n: { type: 'string' },
    'plain-bits': { type: 'string' },
    chains: { type: 'string' },
    seconds: { type: 'string' },
    security: { type: 'string' },
  },
  strict: true,
})
const parsed = FlagsSchema.safeParse(values)
if (!parsed.success) {
  throw new BenchError(
    'INVALID_FLAGS',
    parsed.error.issues.map((issue) => `--${issue.path.join('.')}: ${issue.message}`).join('; '),
  )
}
const flags = parsed.data
const seal = await loadSeal()
if (flags['gain-keys'] !== undefined) {
  const gain = measureSquaringGain(seal, flags.n, flags['plain-bits'], flags['gain-keys'])
  console.log(JSON.stringify(gain))
  process.exit(0)
}
if (flags.depth === undefined)
  throw new BenchError('INVALID_FLAGS', 'give --depth (chains) or --gain-keys (one square)')
const report = measureBgvChains(
  seal,
  { depth: flags.depth, slots: 4, plainBits: flags['plain-bits'], security: flags.security, scheme: 'bgv' },
  flags.chains,
  {
    deadline: flags.seconds === undefined ? undefined : performance.now() + flags.seconds * 1000,
    onChain(index, budget, ok) {
      if (!ok || (index + 1) % 10 === 0)
        process.stderr.write(`chain ${index + 1}: last-square budget ${budget}${ok ? '' : ' FAILED'}\n`)
    },
  },
)
const at = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
const budgets = report.lastSquareBudgets
const switched = report.switchedNoiseBits
console.log(
  `| ${report.needs.depth} | ${flags['plain-bits']} | ${report.polyModulusDegree} | ${report.coeffModulus.join(', ')} | ${report.failures} / ${report.chains} | ${budgets[0]} / ${at(budgets, 0.01)} / ${at(budgets, 0.5)} | ${switched.at(-1)} / ${at(switched, 0.5)} | ${report.seconds.toFixed(0)} s | ${loadavg()[0]?.toFixed(1)} |`,
)

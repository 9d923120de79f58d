import { loadavg } from 'node:os'
import { loadSeal } from '@sealbox/he-core'
import { z } from 'zod'
import { BenchError } from '../BenchError.ts'
import { defineCli, runProgram } from '../core/defineCli.ts'
import { numberFlag } from '../core/flagSchemas.ts'
import { measureBgvChains } from './measureBgvChains.ts'
import { measureSquaringGain } from './measureSquaringGain.ts'

/*
 * `pnpm --filter @sealbox/bench benchmark:bgv-chains -- --depth 8 --plain-bits 25 --chains 500`:
 * runs the chain a BGV suggestion promises (depth × square, relinearize, mod-switch), each
 * under a fresh key set, and prints one Markdown row: the parameters, failures out of
 * chains (`--seconds`: as many as fit), and the spread of the noise budget left after the
 * last square (the margin the rule in he-core's bgvAttempt.ts keeps). Results:
 * packages/bench/results/bgv-chains.md.
 *
 * `-- --gain-keys 1000 --n 8192 --plain-bits 20`: instead, how one square's noise spreads
 * over key sets (what the chain's level primes must hold), as a histogram.
 */

const BgvChainsFlagsSchema = z
  .object({
    depth: numberFlag('depth', 0, 30)
      .optional()
      .meta({ value: 'N', description: 'multiplications in a row asked of the assistant' }),
    'plain-bits': numberFlag('plain-bits', 13, 60).meta({ value: 'N', description: 'bits of the plain modulus t' }),
    chains: numberFlag('chains', 1, 100_000)
      .default(100)
      .meta({ value: 'N', description: 'chains to run, each under fresh keys' }),
    seconds: numberFlag('seconds', 1, 1_000_000)
      .optional()
      .meta({ value: 'N', description: 'start no chain after this many seconds (a busy machine)' }),
    security: z
      .enum(['tc128', 'tc192', 'tc256'])
      .default('tc128')
      .meta({ value: 'level', description: 'security level asked of the assistant' }),
    'gain-keys': numberFlag('gain-keys', 1, 1_000_000)
      .optional()
      .meta({ value: 'N', description: "instead of chains: one square's noise under this many key sets" }),
    n: numberFlag('n', 1024, 32768).default(32768).meta({ value: 'N', description: 'ring degree for --gain-keys' }),
  })
  .strict()

const BGV_CHAINS_CLI = defineCli({
  command: 'pnpm --filter @sealbox/bench benchmark:bgv-chains --',
  summary:
    "Runs the chain a BGV suggestion of he-core's suggestParams promises (square, relinearize, mod-switch per multiplication) under fresh key sets and counts wrong results; or, with --gain-keys, how one square's noise spreads over key sets. Results: packages/bench/results/bgv-chains.md.",
  flags: BgvChainsFlagsSchema,
})

runProgram('benchmark:bgv-chains', BGV_CHAINS_CLI, async (flags) => {
  const seal = await loadSeal()
  if (flags['gain-keys'] !== undefined) {
    console.log(JSON.stringify(measureSquaringGain(seal, flags.n, flags['plain-bits'], flags['gain-keys'])))
    return
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
        if (!ok || (index + 1) % 10 === 0) {
          process.stderr.write(`chain ${index + 1}: last-square budget ${budget}${ok ? '' : ' FAILED'}\n`)
        }
      },
    },
  )
  const at = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
  const budgets = report.lastSquareBudgets
  const switched = report.switchedNoiseBits
  console.log(
    `| ${report.needs.depth} | ${flags['plain-bits']} | ${report.polyModulusDegree} | ${report.coeffModulus.join(', ')} | ${report.failures} / ${report.chains} | ${budgets[0]} / ${at(budgets, 0.01)} / ${at(budgets, 0.5)} | ${switched.at(-1)} / ${at(switched, 0.5)} | ${report.seconds.toFixed(0)} s | ${loadavg()[0]?.toFixed(1)} |`,
  )
})

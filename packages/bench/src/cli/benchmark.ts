/**
 * `npm run benchmark` (root) → `pnpm --filter @sealbox/bench benchmark` → this file:
 * regenerates SEAL's operation timing table on this machine across Native SEAL, Node,
 * Chromium, Firefox ESR and WebKit. `--help` lists the flags.
 */
import process from 'node:process'
import { commandLine, runProgram } from '../core/defineCli.ts'
import { OP_TABLE_CLI } from '../opTable/opTableFlags.ts'
import { resolveOpTableSettings } from '../opTable/opTableSettings.ts'
import { loadPublishedTimings } from '../opTable/publishedTimings.ts'
import { headlineMarkdown } from '../opTable/renderOpTableMarkdown.ts'
import { runOpTable } from '../opTable/runOpTable.ts'
import { installBrowsers } from './installBrowsers.ts'

const log = (line: string) => process.stderr.write(`${line}\n`)

runProgram('benchmark', OP_TABLE_CLI, async (flags, argv) => {
  const publishedIds = new Set([...loadPublishedTimings().values()].map((row) => `${row.group}/${row.op}`))
  const settings = resolveOpTableSettings(flags, publishedIds)
  if (settings.installBrowsers) installBrowsers((line) => log(`[install-browsers] ${line}`))
  const { plan } = settings
  log(
    `sealbox benchmark: engines ${settings.engines.join(', ')}; n ${plan.ns.join(', ')}; ${plan.ops.length} ops; ` +
      `${plan.policy.repeats} samples × ${plan.policy.iterations} calls; ${settings.schedule}${settings.quick ? ' (quick)' : ''}`,
  )
  log(
    "parameters as SEAL's sealbench: BFVDefault(n) coeff modulus, Batching(n, 20) plain modulus, SecLevelType.none (benchmark parameters, not secure settings)",
  )
  const started = performance.now()
  const { report, paths } = await runOpTable({
    settings,
    command: commandLine('npm run benchmark', argv),
    progress: process.stderr,
  })
  process.stdout.write(`\n${headlineMarkdown(report)}\n\n`)
  log(`wrote ${paths.markdown}\n      ${paths.json}\n      ${paths.html}`)
  log(`total wall time ${((performance.now() - started) / 60_000).toFixed(1)} min`)
})

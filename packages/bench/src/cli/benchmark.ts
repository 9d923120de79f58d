/**
 * `npm run benchmark` (root) → `pnpm --filter @sealbox/bench benchmark` → this file:
 * regenerates SEAL's operation timing table on this machine across Native SEAL, Node,
 * Chromium, Firefox ESR and WebKit. `--help` lists the flags.
 */
import process from 'node:process'
import { BenchError } from '../BenchError.ts'
import { OP_TABLE_CLI } from '../opTable/opTableFlags.ts'
import { resolveOpTableSettings } from '../opTable/opTableSettings.ts'
import { loadPublishedTimings } from '../opTable/publishedTimings.ts'
import { headlineMarkdown } from '../opTable/renderOpTableMarkdown.ts'
import { runOpTable } from '../opTable/runOpTable.ts'
import { installBrowsers } from './installBrowsers.ts'

const log = (line: string) => process.stderr.write(`${line}\n`)

/** The command as the user would type it from the repository root. */
function commandLine(argv: readonly string[]): string {
  const args = argv.filter((arg) => arg !== '--')
  return args.length === 0 ? 'npm run benchmark' : `npm run benchmark -- ${args.join(' ')}`
}

async function main(argv: readonly string[]): Promise<void> {
  const flags = OP_TABLE_CLI.parse(argv)
  if (flags === 'help') {
    process.stdout.write(`${OP_TABLE_CLI.help()}\n`)
    return
  }
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
    command: commandLine(argv),
    progress: process.stderr,
  })
  process.stdout.write(`\n${headlineMarkdown(report)}\n\n`)
  log(`wrote ${paths.markdown}\n      ${paths.json}\n      ${paths.html}`)
  log(`total wall time ${((performance.now() - started) / 60_000).toFixed(1)} min`)
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof BenchError) {
    log(`benchmark: ${error.message}`)
    process.exitCode = error.code === 'INVALID_FLAGS' ? 2 : 1
  } else {
    log(`benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
    process.exitCode = 1
  }
})

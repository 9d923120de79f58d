/**
 * `pnpm --filter @sealbox/he-core api:report` checks he-core's public surface: it compiles the
 * declarations into a temporary folder and has API Extractor compare each entry point of
 * package.json `exports` with its committed report in `api/` (`he-core.public.api.md`,
 * `he-core-client.public.api.md`, …). An export added, removed or changed without the report
 * changing with it fails the check (test/apiReport.test.ts runs it in the suite).
 * `--update` rewrites the reports instead; review the diff and commit it with the change.
 * Declarations tagged `@internal` (used by sealbox's own apps, not meant for package users)
 * are left out of the reports.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import process from 'node:process'
import { fileURLToPath } from 'node:url'
import { CompilerState, Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor'

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url))
const REPORT_DIR = join(PACKAGE_DIR, 'api')
const update = process.argv.includes('--update')
// Whether a report was written or differs is summed up below (with the diff); the rest is noise.
const QUIET = new Set([
  'console-preamble',
  'console-api-report-created',
  'console-api-report-copied',
  'console-api-report-not-copied',
])
/** What a package user's TypeScript sees: the shipped declarations under NodeNext resolution. */
const COMPILER_OPTIONS = {
  target: 'ES2023',
  lib: ['ES2023', 'ESNext.Disposable', 'DOM'],
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  allowImportingTsExtensions: true,
  skipLibCheck: true,
  strict: true,
  types: ['node'],
}

const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as {
  exports: Record<string, { types: string }>
}
// Inside the package, so the declarations resolve node-seal and zod from its node_modules (but
// not inside node_modules, where API Extractor would take them for another package).
// A fixed name: the reports quote the paths of the declarations they warn about.
const out = join(PACKAGE_DIR, '.api-report')
rmSync(out, { recursive: true, force: true })
try {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  // `--noCheck`: the same declarations, without type-checking src/ again (`typecheck` checks it,
  // test files included, and `build` checks what ships).
  execFileSync(
    process.execPath,
    [
      tsc,
      '-p',
      'tsconfig.build.json',
      '--emitDeclarationOnly',
      '--noCheck',
      '--sourceMap',
      'false',
      '--outDir',
      join(out, 'dist'),
    ],
    { cwd: PACKAGE_DIR, stdio: 'inherit', env: process.env },
  )
  const entries = Object.entries(manifest.exports).map(([subpath, targets]) => {
    const name = subpath === '.' ? 'he-core' : `he-core-${subpath.slice(2)}`
    const config = ExtractorConfig.prepare({
      configObject: {
        projectFolder: PACKAGE_DIR,
        mainEntryPointFilePath: join(out, targets.types),
        compiler: { overrideTsconfig: { compilerOptions: COMPILER_OPTIONS, include: [join(out, targets.types)] } },
        apiReport: {
          enabled: true,
          reportFolder: REPORT_DIR,
          reportTempFolder: join(out, 'temp'),
          reportFileName: name,
          reportVariants: ['public'],
        },
        docModel: { enabled: false },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        messages: {
          // A type a public signature names but the entry does not export is written into the report.
          extractorMessageReporting: {
            default: { logLevel: ExtractorLogLevel.Warning, addToApiReportFile: true },
            'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
            'ae-undocumented': { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
            // `@internal` marks what sealbox's own apps use; the name stays as it is.
            'ae-internal-missing-underscore': { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
          },
          tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
        },
      },
      configObjectFullPath: undefined,
      packageJsonFullPath: join(PACKAGE_DIR, 'package.json'),
    })
    return { subpath, name, config }
  })
  // One TypeScript program for every entry point: each would otherwise parse and check the same
  // declarations (and node's, node-seal's, zod's) again, which is most of this script's CPU.
  const [first] = entries
  const compilerState = first
    ? CompilerState.create(first.config, {
        additionalEntryPoints: entries.map(({ config }) => config.mainEntryPointFilePath),
      })
    : undefined
  const failures: string[] = []
  for (const { subpath, name, config } of entries) {
    const result = Extractor.invoke(config, {
      localBuild: update,
      printApiReportDiff: !update,
      messageCallback: quietMessages,
      ...(compilerState ? { compilerState } : {}),
    })
    if (!update && result.apiReportChanged) failures.push(`${subpath}: api/${name}.public.api.md differs`)
    else if (!result.succeeded) failures.push(`${subpath}: ${result.errorCount} errors`)
  }
  if (failures.length > 0) {
    process.stderr.write(
      `he-core's public surface changed:\n  ${failures.join('\n  ')}\n` +
        'Review the change; if it is meant, run `pnpm --filter @sealbox/he-core api:report --update` and commit api/.\n',
    )
    process.exitCode = 1
  }
} finally {
  rmSync(out, { recursive: true, force: true })
}

function quietMessages(message: { messageId: string; logLevel: ExtractorLogLevel; handled: boolean }): void {
  if (QUIET.has(message.messageId)) message.handled = true
}

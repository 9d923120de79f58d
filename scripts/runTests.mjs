#!/usr/bin/env node
// Runs every package's vitest project once, then prints one plain summary line
// ("N passed, N failed, N skipped") that CI systems and people can read at a glance.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)))
const report = join(ROOT, 'node_modules', '.vitest-report.json')
rmSync(report, { force: true })
const vitest = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs')
// Node's compile cache for every process the suite starts (vitest's workers, the servers they
// spawn, their worker threads and processes): each loads the same modules, and a server starts
// on about half the CPU once they are cached (ready at ~1.1 CPU-s instead of ~2.0).
const compileCache = process.env.NODE_COMPILE_CACHE ?? join(ROOT, 'node_modules', '.cache', 'node-compile-cache')
const result = spawnSync(
  process.execPath,
  [vitest, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)],
  { cwd: ROOT, stdio: 'inherit', env: { ...process.env, NODE_COMPILE_CACHE: compileCache } },
)
let status = result.status ?? 1
if (existsSync(report)) {
  const json = JSON.parse(readFileSync(report, 'utf8'))
  const skipped = (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0)
  if (json.numTotalTests === 0) status = status || 1
  process.stdout.write(
    `\nsealbox tests: ${json.numPassedTests} passed, ${json.numFailedTests} failed, ${skipped} skipped\n`,
  )
} else {
  process.stdout.write('\nsealbox tests: 0 passed, 1 failed (vitest wrote no report)\n')
  status = status || 1
}
process.exit(status)

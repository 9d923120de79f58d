#!/usr/bin/env node
// The flake hunt: runs every end-to-end test file (`*.e2e.test.ts`) N times under the
// CPU load CI uses (scripts/cpuLoad.mjs: one busy process per core), then prints how
// often each file passed and failed. A file that ever fails here fails some user's
// `npm test` too; fix its cause (an ordering by sleep, a machine-speed assumption),
// never add a retry.
//
//   node scripts/flakeHunt.mjs [--rounds 5] [--match <substring>] [--no-load]
//
// Each round is one vitest run over all the files (the projects in their usual order,
// so the browser suites share one build and one served sandbox); the per-file results
// come from vitest's JSON report. The counts also go to node_modules/.flake-hunt.json.
// Run it with the project's Node 24 (`.tools/bin` after `npm test` or `npm run setup`).
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startCpuLoad } from './cpuLoad.mjs'

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)))
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs')
const REPORT = join(ROOT, 'node_modules', '.flake-hunt-round.json')
const SUMMARY = join(ROOT, 'node_modules', '.flake-hunt.json')

function option(name, fallback) {
  const at = process.argv.indexOf(name)
  return at === -1 ? fallback : process.argv[at + 1]
}

const rounds = Number(option('--rounds', '5'))
const match = option('--match', '')
const withLoad = !process.argv.includes('--no-load')
if (!(Number.isInteger(rounds) && rounds > 0)) {
  process.stderr.write('usage: node scripts/flakeHunt.mjs [--rounds N] [--match <substring>] [--no-load]\n')
  process.exit(2)
}

const files = spawnSync('git', ['ls-files', '*.e2e.test.ts'], { cwd: ROOT, encoding: 'utf8' })
  .stdout.split('\n')
  .filter((file) => file !== '' && file.includes(match))
if (files.length === 0) {
  process.stderr.write(`no *.e2e.test.ts file matches "${match}"\n`)
  process.exit(2)
}

/** Runs one vitest round over `files`; resolves with each file's status (passed / failed) and its failed tests. */
function round() {
  rmSync(REPORT, { force: true })
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [VITEST, 'run', '--reporter=dot', '--reporter=json', `--outputFile.json=${REPORT}`, ...files],
      { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] },
    )
    child.on('exit', (code) => {
      const results = new Map(
        files.map((file) => [file, { passed: false, failures: ['no result (vitest exited early)'] }]),
      )
      if (existsSync(REPORT)) {
        for (const file of JSON.parse(readFileSync(REPORT, 'utf8')).testResults ?? []) {
          const name = file.name.startsWith(ROOT) ? file.name.slice(ROOT.length + 1) : file.name
          const failures = (file.assertionResults ?? [])
            .filter((test) => test.status === 'failed')
            .map((test) => test.fullName)
          if (file.status === 'failed' && failures.length === 0) failures.push(file.message || 'the file failed to run')
          results.set(name, { passed: file.status === 'passed', failures })
        }
      }
      resolve({ code, results })
    })
  })
}

const counts = new Map(files.map((file) => [file, { passed: 0, failed: 0, failures: [] }]))
const load = withLoad ? startCpuLoad({ seconds: 3 * 3600 }) : undefined
const stop = () => load?.stop()
process.on('exit', stop)
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130))
const startedAt = new Date().toISOString()
const loads = []
process.stderr.write(
  `[flake hunt] ${files.length} files × ${rounds} rounds, ${load ? `under CPU load (PIDs ${load.pids.join(' ')})` : 'no load'}\n`,
)
for (let r = 1; r <= rounds; r++) {
  loads.push(loadavg()[0])
  const started = Date.now()
  const { results } = await round()
  for (const [file, result] of results) {
    const count = counts.get(file) ?? { passed: 0, failed: 0, failures: [] }
    if (result.passed) count.passed++
    else {
      count.failed++
      count.failures.push(...result.failures.map((failure) => `round ${r}: ${failure}`))
    }
    counts.set(file, count)
  }
  loads.push(loadavg()[0])
  const failed = [...results.values()].filter((result) => !result.passed).length
  process.stderr.write(
    `[flake hunt] round ${r}/${rounds}: ${failed} failing files, ${((Date.now() - started) / 60000).toFixed(1)} min\n`,
  )
  writeFileSync(
    SUMMARY,
    `${JSON.stringify({ startedAt, roundsDone: r, load: Boolean(load), loadAverages: loads, files: Object.fromEntries(counts) }, null, 2)}\n`,
  )
}
stop()

const width = Math.max(...files.map((file) => file.length))
process.stdout.write(`\n${'file'.padEnd(width)}  passed  failed\n`)
for (const [file, count] of [...counts].sort(([a], [b]) => a.localeCompare(b))) {
  process.stdout.write(
    `${file.padEnd(width)}  ${String(count.passed).padStart(6)}  ${String(count.failed).padStart(6)}\n`,
  )
}
const failures = [...counts].flatMap(([file, count]) => count.failures.map((failure) => `${file}: ${failure}`))
if (failures.length > 0) process.stdout.write(`\nfailures:\n${failures.map((line) => `  ${line}`).join('\n')}\n`)
process.stdout.write(
  `\n${rounds} rounds, load average (1 min) ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}; counts in node_modules/.flake-hunt.json\n`,
)
process.exit(failures.length > 0 ? 1 : 0)

#!/usr/bin/env node
// `npm test`'s last step (package.json `sealbox:test`): the typecheck and the lint run at the
// same time as the tests (scripts/runTests.mjs) instead of before them. The tests' output goes
// straight to the terminal; each check's output is held and printed when it ends, so the two
// never interleave line by line. The run fails when any of the three fails, and ends with the
// tests' summary line followed by one line for the checks:
//
//   sealbox tests: N passed, N failed, N skipped
//   sealbox checks: typecheck passed, lint passed
import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)))

/**
 * @typedef {{ name: string, command: string, args: string[] }} Step
 * @typedef {{ name: string, status: number, seconds: number }} StepResult
 */

/** Runs `step`, holding its output; resolves once it exited, after printing what it said if it failed. */
function runHeld(step, cwd, out) {
  const started = performance.now()
  return new Promise((resolve) => {
    const child = spawn(step.command, step.args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    /** @type {Buffer[]} */
    const chunks = []
    child.stdout.on('data', (chunk) => chunks.push(chunk))
    child.stderr.on('data', (chunk) => chunks.push(chunk))
    const finish = (status) => {
      const seconds = Math.round((performance.now() - started) / 1000)
      const verdict = status === 0 ? 'passed' : `failed (exit ${status})`
      if (status !== 0) out.write(`\n[${step.name}] output:\n${Buffer.concat(chunks).toString()}\n`)
      out.write(`[${step.name}] ${verdict} in ${seconds} s\n`)
      resolve({ name: step.name, status, seconds })
    }
    child.once('error', (error) => {
      chunks.push(Buffer.from(`${error.message}\n`))
      finish(127)
    })
    child.once('close', (code, signal) => finish(code ?? (signal ? 128 : 1)))
  })
}

/** Runs `step` with the terminal as its output; resolves with its exit status. */
function runInherited(step, cwd) {
  return new Promise((resolve) => {
    const child = spawn(step.command, step.args, { cwd, stdio: 'inherit' })
    child.once('error', () => resolve(127))
    child.once('close', (code, signal) => resolve(code ?? (signal ? 128 : 1)))
  })
}

/**
 * Runs `checks` (output held) and `tests` (output live) at the same time; prints one line with
 * every check's verdict after the tests ended, and resolves with the exit status of the whole:
 * 0 only when every step exited 0.
 * @param {{ checks: Step[], tests: Step, cwd?: string, out?: NodeJS.WritableStream }} options
 * @returns {Promise<number>}
 */
export async function checkAndTest({ checks, tests, cwd = ROOT, out = process.stdout }) {
  const [testStatus, ...checkResults] = await Promise.all([
    runInherited(tests, cwd),
    ...checks.map((step) => runHeld(step, cwd, out)),
  ])
  const verdicts = checkResults.map(({ name, status }) => `${name} ${status === 0 ? 'passed' : 'failed'}`)
  out.write(`sealbox checks: ${verdicts.join(', ')}\n`)
  const failed = checkResults.find(({ status }) => status !== 0)
  return testStatus !== 0 ? testStatus : (failed?.status ?? 0)
}

/** pnpm as the package script that started us ran it (npm_execpath), or the one on PATH. */
function pnpm(args) {
  const entry = process.env.npm_execpath
  return entry && /pnpm/.test(entry) ? { command: process.execPath, args: [entry, ...args] } : { command: 'pnpm', args }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const status = await checkAndTest({
    checks: [
      { name: 'typecheck', ...pnpm(['run', 'typecheck']) },
      { name: 'lint', ...pnpm(['run', 'lint']) },
    ],
    tests: {
      name: 'tests',
      command: process.execPath,
      args: [join(ROOT, 'scripts', 'runTests.mjs'), ...process.argv.slice(2)],
    },
  })
  process.exit(status)
}

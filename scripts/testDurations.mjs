#!/usr/bin/env node
// How long each test file took in the last full run under CI's load, for the sequencer in the
// root vitest.config.ts: the longest files start first, so the parallel group does not end
// with one long file running alone. `node scripts/testDurations.mjs` rewrites
// scripts/testDurations.json from the report of the last `npm test`
// (node_modules/.vitest-report.json, written by scripts/runTests.mjs).
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)))
export const DURATIONS_FILE = join(ROOT, 'scripts', 'testDurations.json')
const REPORT = join(ROOT, 'node_modules', '.vitest-report.json')

/**
 * Seconds per test file, keyed by its path from the repo root; empty when the file is missing
 * or unreadable (the order then falls back to file size, which is only slower).
 * @returns {Record<string, number>}
 */
export function readDurations(file = DURATIONS_FILE) {
  if (!existsSync(file)) return {}
  try {
    const { seconds } = JSON.parse(readFileSync(file, 'utf8'))
    return seconds && typeof seconds === 'object' ? seconds : {}
  } catch {
    return {}
  }
}

/**
 * The durations in a vitest JSON report (`testResults[].name`, `startTime`, `endTime`), in seconds
 * rounded to 0.1, keyed by path from `root`, sorted by path so the file diffs well.
 * @param {{ testResults?: { name: string, startTime: number, endTime: number }[] }} report
 * @param {string} root
 * @returns {Record<string, number>}
 */
export function durationsOf(report, root = ROOT) {
  const entries = (report.testResults ?? []).map(({ name, startTime, endTime }) => [
    relative(root, name),
    Math.round((endTime - startTime) / 100) / 10,
  ])
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!existsSync(REPORT)) {
    process.stderr.write(`no report at ${relative(ROOT, REPORT)}: run npm test first\n`)
    process.exit(1)
  }
  const seconds = durationsOf(JSON.parse(readFileSync(REPORT, 'utf8')))
  const note = 'Seconds per test file in the last full run under load; refresh: node scripts/testDurations.mjs'
  writeFileSync(DURATIONS_FILE, `${JSON.stringify({ note, seconds }, null, 2)}\n`)
  process.stdout.write(`${relative(ROOT, DURATIONS_FILE)}: ${Object.keys(seconds).length} files\n`)
}

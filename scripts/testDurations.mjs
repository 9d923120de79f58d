#!/usr/bin/env node
// How long each test file took in the last full run under CI's load, for the sequencer in the
// root vitest.config.ts: the longest files start first, so the parallel group does not end
// with one long file running alone. `node scripts/testDurations.mjs` rewrites
// scripts/testDurations.json from vitest's record of the last `npm test`
// (node_modules/.vite/vitest/*/results.json).
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)))
export const DURATIONS_FILE = join(ROOT, 'scripts', 'testDurations.json')
// vitest's own record of the last run: each file's whole duration, its beforeAll, imports and
// tests. (The JSON report's startTime/endTime span only the tests: deployDoc's 188 s there
// was 34 s, the bench server test's 105 s was 2.6 s, and such files started last.)
const RESULTS_CACHE = join(ROOT, 'node_modules', '.vite', 'vitest')

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
 * The durations in vitest's results cache (`{ results: [["project:path", { duration }], …] }`,
 * ms, paths from the root), in seconds rounded to 0.1, keyed by path, sorted by path so the
 * file diffs well. A file in several projects keeps its longest.
 * @param {{ results?: [string, { duration?: number }][] }} cache
 * @returns {Record<string, number>}
 */
export function durationsOf(cache) {
  /** @type {Record<string, number>} */
  const seconds = {}
  for (const [key, { duration }] of cache.results ?? []) {
    if (typeof duration !== 'number') continue
    const path = key.slice(key.indexOf(':') + 1)
    seconds[path] = Math.max(seconds[path] ?? 0, Math.round(duration / 100) / 10)
  }
  return Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

/** The newest `results.json` under vitest's cache folder, or undefined. */
function newestResultsCache(dir = RESULTS_CACHE) {
  if (!existsSync(dir)) return undefined
  const files = readdirSync(dir)
    .map((name) => join(dir, name, 'results.json'))
    .filter((file) => existsSync(file))
  return files.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0]
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const cache = newestResultsCache()
  if (!cache) {
    process.stderr.write(`no vitest results under ${relative(ROOT, RESULTS_CACHE)}: run npm test first\n`)
    process.exit(1)
  }
  const seconds = durationsOf(JSON.parse(readFileSync(cache, 'utf8')))
  const note = 'Seconds per test file in the last full run under load; refresh: node scripts/testDurations.mjs'
  writeFileSync(DURATIONS_FILE, `${JSON.stringify({ note, seconds }, null, 2)}\n`)
  process.stdout.write(`${relative(ROOT, DURATIONS_FILE)}: ${Object.keys(seconds).length} files\n`)
}

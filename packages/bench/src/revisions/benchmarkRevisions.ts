/**
 * `pnpm --filter @sealbox/bench benchmark:revisions -- --before <checkout>`: the search's
 * default config at several shapes, timed with two revisions of he-core side by side. Each
 * (revision, shape, round) runs in a fresh child process that imports that checkout's
 * sources; the two revisions alternate round by round, and which goes first alternates too,
 * so drifting load on the shared machine falls on both alike. The ratio of a round is
 * after ÷ before of that round's medians; the report gives the median over rounds.
 */
import { isAbsolute, join, resolve } from 'node:path'
import process from 'node:process'
import { fileURLToPath } from 'node:url'
import { ChildTask } from '../core/ChildTask.ts'
import { commandLine, runProgram } from '../core/defineCli.ts'
import { loadAverage, machineInfo } from '../core/machineInfo.ts'
import { sourceRevision } from '../core/sourceRevision.ts'
import { mean, median } from '../core/stats.ts'
import { writeStampedReport } from '../core/writeReportFiles.ts'
import { type RevisionShapeResult, renderRevisionReport } from './renderRevisionReport.ts'
import { parseShape, REVISIONS_CLI } from './revisionFlags.ts'
import type { RevisionSearchSample } from './revisionSearchJob.ts'

const log = (line: string) => process.stderr.write(`${line}\n`)
const CHILD = new URL('./revisionSearchChild.ts', import.meta.url)
const HERE_ROOT = fileURLToPath(new URL('../../../../', import.meta.url))

runProgram('benchmark:revisions', REVISIONS_CLI, async (flags, argv) => {
  const cwd = process.env.INIT_CWD ?? process.cwd()
  const absolute = (dir: string) => (isAbsolute(dir) ? dir : resolve(cwd, dir))
  const roots = { before: absolute(flags.before), after: absolute(flags.after ?? HERE_ROOT) }
  const revisions = { before: sourceRevision(roots.before), after: sourceRevision(roots.after) }
  const outDir = flags.out ?? fileURLToPath(new URL('../../results/search/', import.meta.url))
  const loadBefore = loadAverage()
  const shapes: RevisionShapeResult[] = []
  for (const text of flags.shapes.split(',')) {
    const shape = parseShape(text)
    const rounds: RevisionShapeResult['rounds'] = []
    for (let round = 0; round < flags.rounds; round++) {
      const order = round % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const)
      const pair: Partial<Record<'before' | 'after', RevisionSearchSample>> = {}
      for (const side of order) {
        const job = { root: roots[side], ...shape, warmup: flags.warmup, samples: flags.samples }
        pair[side] = await ChildTask.start<RevisionSearchSample>(`${side} ${text}`, CHILD, job, 15 * 60_000).result
      }
      const { before, after } = pair as Record<'before' | 'after', RevisionSearchSample>
      log(
        `[revisions] ${text} round ${round + 1}: before ${median(before.totalMs).toFixed(3)} ms, after ${median(after.totalMs).toFixed(3)} ms (load ${loadAverage()[0]})`,
      )
      rounds.push({ before: summarize(before), after: summarize(after), load: loadAverage()[0] })
    }
    shapes.push({ ...shape, rounds })
  }
  const report = {
    command: commandLine('pnpm --filter @sealbox/bench benchmark:revisions', argv),
    date: new Date().toISOString(),
    machine: machineInfo(),
    loadAverage: { before: loadBefore, after: loadAverage() },
    revisions,
    samples: flags.samples,
    warmup: flags.warmup,
    shapes,
  }
  const markdown = await writeStampedReport({
    markdownPath: join(outDir, 'search-before-after.md'),
    jsonPath: join(outDir, 'search-before-after.json'),
    markdown: renderRevisionReport(report),
    json: report,
  })
  process.stdout.write(markdown)
})

function summarize(sample: RevisionSearchSample): RevisionShapeResult['rounds'][number]['before'] {
  return {
    totalMin: Math.min(...sample.totalMs),
    totalMedian: median(sample.totalMs),
    computeMedian: median(sample.computeMs),
    cpuMean: mean(sample.cpuMs),
    exact: sample.exact,
    config: sample.config,
  }
}

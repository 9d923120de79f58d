/**
 * `pnpm --filter @sealbox/bench benchmark:calibrate`: he-core's cost model against the
 * clock. Each cell of a grid (scheme × n × program kind) runs on a real server's one pool
 * worker; the report gives the worker's milliseconds per cost unit per cell and the
 * spread across the grid. `--help` lists the flags.
 */
import { join } from 'node:path'
import process from 'node:process'
import { fileURLToPath } from 'node:url'
import { runProgram } from '../core/defineCli.ts'
import { loadAverage, machineInfo } from '../core/machineInfo.ts'
import { writeStampedReport } from '../core/writeReportFiles.ts'
import { CALIBRATION_CLI } from './calibrationFlags.ts'
import { calibrationSpread, measureCalibration } from './measureCalibration.ts'
import { renderCalibrationMarkdown } from './renderCalibrationReport.ts'

const OUT = fileURLToPath(new URL('../../results/calibration/', import.meta.url))

runProgram('benchmark:calibrate', CALIBRATION_CLI, async (settings) => {
  const plan = settings.quick ? { ...settings, degrees: [4096], passes: 1, requests: 3, warmup: 1 } : settings
  const loadBefore = loadAverage()
  const cells = await measureCalibration({ ...plan, search: true, log: (line) => process.stderr.write(`${line}\n`) })
  const report = {
    date: new Date().toISOString(),
    loadAverage: { before: loadBefore, after: loadAverage() },
    machine: machineInfo(),
    settings: plan,
    spread: { median: calibrationSpread(cells), fastest: calibrationSpread(cells, 'fastest') },
    cells,
  }
  const name = settings.name ?? (settings.quick ? 'calibration-quick' : 'calibration')
  const markdown = await writeStampedReport({
    markdownPath: join(OUT, `${name}.md`),
    jsonPath: join(OUT, `${name}.json`),
    markdown: renderCalibrationMarkdown(report),
    json: report,
  })
  process.stdout.write(markdown)
})

import { describe, expect, it } from 'vitest'
import { calibrationSpread, measureCalibration } from './measureCalibration.ts'

// A small version of the calibration grid on a real server and worker: the cost model
// must keep pricing grown ciphertexts, NAF rotations, input/output bytes, key uploads and
// the server's search in line with the worker's CPU time. Ratios within one run only (the
// worker's CPU time, exact to microseconds, is not inflated by other processes the way
// wall time is). The benchmark's bound is 2×; this one stays at 3× because the small
// grid does not keep 2× with a clear margin: measured on this project's 2-core VM with
// `scripts/cpuLoad.mjs` busy on every core, 1.49× and 1.62× (and 1.94×, 2.02× while other
// work also held the machine at a load average of 18), and 2.11× without it — its cells
// are 3 requests of 2–20 ms jobs, whose medians move by a third from run to run, and the
// search cell alone sits at 0.15–0.25 ms per unit against the programs' 0.18–0.32.
describe('cost model calibration (small grid)', () => {
  it('prices every cell within a few × of every other, by worker CPU time per cost unit', {
    timeout: 600_000,
  }, async () => {
    const cells = await measureCalibration({
      schemes: ['bfv', 'ckks'],
      degrees: [4096],
      kinds: ['multiply', 'grown', 'rotateOwnKey', 'rotateNaf', 'sumElements', 'manyInputs', 'keyUpload'],
      repeat: 4,
      requests: 3,
      warmup: 1,
      search: true,
    })
    expect(cells.map((cell) => cell.kind).filter((kind) => kind.startsWith('search'))).toEqual([
      'searchKeyUpload',
      'search',
    ])
    expect(cells).toHaveLength(16)
    for (const cell of cells) {
      expect(cell.units, cell.name).toBeGreaterThan(0)
      // Every job does measurable work (the worker's clock is exact), so no rate is 0 or infinite.
      expect(cell.workerMs, cell.name).toBeGreaterThan(0)
      expect(Number.isFinite(cell.msPerUnit), cell.name).toBe(true)
    }
    // A NAF rotation is priced at its six terms: the grid's rates only agree if SEAL really does six switches.
    const rate = (name: string) => cells.find((cell) => cell.name === name)?.msPerUnit ?? Number.NaN
    expect(rate('bfv n=4096 rotateNaf') / rate('bfv n=4096 rotateOwnKey')).toBeLessThan(2.5)
    expect(rate('bfv n=4096 rotateNaf') / rate('bfv n=4096 rotateOwnKey')).toBeGreaterThan(0.4)
    const spread = calibrationSpread(cells)
    const rates = cells.map((cell) => `${cell.name} ${cell.msPerUnit.toFixed(3)}`).join(', ')
    console.log(`[calibration] small grid spread ${spread.toFixed(2)}× (ms per unit: ${rates})`)
    expect(spread).toBeLessThan(3)
  })
})

import { getHeContext, keyUploadCost, keyUploadPeakHeapBytes, keyUploadSize } from '@sealbox/he-core'
import type { SealboxClient } from '@sealbox/he-core/client'
import { PrivateSearchClient, type SearchConfig, searchCost, syntheticSearchQuery } from '@sealbox/he-core/search'
import { BenchError } from '../BenchError.ts'
import { median } from '../harness/stats.ts'
import { type CalibrationCell, WORKER_PHASES, workerCpuMsOf } from './measureCalibration.ts'

/**
 * The server's own search in the calibration grid: uploading the search's Galois keys
 * (checked and loaded into SEAL under the search parameters, unlike the grid's other
 * key sets) priced by `keyUploadCost` of their full size (`keyUploadSize`), and one query priced by `searchCost`, each timed
 * by the worker's CPU like the program cells.
 */
export async function measureSearchCells(
  client: SealboxClient,
  plan: { requests: number; warmup: number },
): Promise<CalibrationCell[]> {
  const { database: _database, fingerprint: _fingerprint, ...config } = await client.searchConfig()
  const served: SearchConfig = config
  const ctx = await getHeContext(served.params)
  using search = PrivateSearchClient.create(ctx, served)
  const keys = search.evaluationKeys()
  const cells: CalibrationCell[] = []
  const base = { scheme: served.params.scheme, polyModulusDegree: served.params.polyModulusDegree, peakHeapBytes: 0 }
  const time = async (what: string, request: (i: number) => Promise<{ timing: Record<string, number> }>) => {
    const samples: number[] = []
    const phases = Object.fromEntries(WORKER_PHASES.map((phase) => [phase, [] as number[]]))
    for (let i = 0; i < plan.warmup + plan.requests; i++) {
      let timing: Record<string, number>
      try {
        timing = (await request(i)).timing
      } catch (error) {
        throw new BenchError('ENGINE_FAILED', `${what}: ${String(error)}`, { cause: error })
      }
      if (i < plan.warmup) continue
      samples.push(workerCpuMsOf(`${base.scheme} n=${base.polyModulusDegree} ${what}`, i, timing))
      for (const phase of WORKER_PHASES) phases[phase]?.push(timing[phase] ?? 0)
    }
    return {
      samples,
      phases: Object.fromEntries(Object.entries(phases).map(([phase, values]) => [phase, median(values)])),
    }
  }
  const cell = (
    kind: CalibrationCell['kind'],
    units: number,
    { samples, phases }: { samples: number[]; phases: Record<string, number> },
    extra: Partial<CalibrationCell>,
  ): CalibrationCell => {
    const workerMs = median(samples)
    return {
      ...base,
      name: `${base.scheme} n=${base.polyModulusDegree} ${kind}`,
      kind,
      units,
      workerMs,
      msPerUnit: workerMs / units,
      samples,
      phases,
      ...extra,
    }
  }
  if (keys) {
    const measured = await time('searchKeyUpload', () => client.putKeySet('calibration-search', keys))
    const size = keyUploadSize(keys, {
      load: {
        fingerprint: ctx.fingerprint,
        polyModulusDegree: ctx.params.polyModulusDegree,
        keyPrimeCount: ctx.coeffPrimes.length,
      },
      maxPolyModulusDegree: ctx.params.polyModulusDegree,
    })
    cells.push(
      cell('searchKeyUpload', keyUploadCost(size), measured, {
        keyBytes: keys.byteLength,
        peakHeapBytes: keyUploadPeakHeapBytes(size),
      }),
    )
  }
  const options = keys ? { keySet: 'calibration-search' } : {}
  const measured = await time('search', (i) =>
    client.search(search.encryptQuery(syntheticSearchQuery(served.dimension, i + 1)), options),
  )
  cells.push(cell('search', searchCost(served, 1), measured, {}))
  return cells
}

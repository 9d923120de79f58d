import { getHeContext } from '@sealbox/he-core'
import type { SealboxClient } from '@sealbox/he-core/client'
import { keyUploadCost, keyUploadPeakHeapBytes, keyUploadSize } from '@sealbox/he-core/envelope'
import { PrivateSearchClient, type SearchConfig, searchCost, syntheticSearchQuery } from '@sealbox/he-core/search'
import type { CalibrationCellSpec, WorkerSamples } from './CalibrationCell.ts'
import { timeWorker } from './timeWorker.ts'

/**
 * The server's own search in the calibration grid: uploading the search's Galois keys
 * (checked and loaded into SEAL under the search parameters, unlike the grid's other
 * key sets) priced by `keyUploadCost` of their full size (`keyUploadSize`), and one query
 * priced by `searchCost`, each timed by the worker's CPU like the program cells.
 */
export async function measureSearchCells(
  client: SealboxClient,
  plan: { requests: number; warmup: number },
): Promise<{ spec: CalibrationCellSpec; measured: WorkerSamples }[]> {
  const { database: _database, fingerprint: _fingerprint, ...config } = await client.searchConfig()
  const served: SearchConfig = config
  const ctx = await getHeContext(served.params)
  using search = PrivateSearchClient.create(ctx, served)
  const keys = search.evaluationKeys()
  const base = { scheme: served.params.scheme, polyModulusDegree: served.params.polyModulusDegree, peakHeapBytes: 0 }
  const nameOf = (kind: string) => `${base.scheme} n=${base.polyModulusDegree} ${kind}`
  const cells: { spec: CalibrationCellSpec; measured: WorkerSamples }[] = []
  if (keys) {
    const measured = await timeWorker(
      nameOf('searchKeyUpload'),
      () => client.putKeySet('calibration-search', keys),
      plan,
    )
    const size = keyUploadSize(keys, {
      load: {
        fingerprint: ctx.fingerprint,
        polyModulusDegree: ctx.params.polyModulusDegree,
        keyPrimeCount: ctx.coeffPrimes.length,
      },
      maxPolyModulusDegree: ctx.params.polyModulusDegree,
    })
    cells.push({
      spec: {
        ...base,
        name: nameOf('searchKeyUpload'),
        kind: 'searchKeyUpload',
        units: keyUploadCost(size),
        keyBytes: keys.byteLength,
        peakHeapBytes: keyUploadPeakHeapBytes(size),
      },
      measured,
    })
  }
  const options = keys ? { keySet: 'calibration-search' } : {}
  const measured = await timeWorker(
    nameOf('search'),
    (i) => client.search(search.encryptQuery(syntheticSearchQuery(served.dimension, i + 1)), options),
    plan,
  )
  cells.push({ spec: { ...base, name: nameOf('search'), kind: 'search', units: searchCost(served, 1) }, measured })
  return cells
}

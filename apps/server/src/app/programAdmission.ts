import { HeError, type ProgramAnalysis, type ProgramCost, programCost, type ResolvedParams } from '@sealbox/he-core'
import type { ServerConfig } from '../config/ServerConfig.ts'
import type { KeyUse } from '../executor/KeyUse.ts'
import type { KeySetRecord } from '../store/KeyStore.ts'

const MiB = 1024 * 1024

/**
 * Heap bytes of a key set deserialized in a worker: each key-switching key (the
 * relinearization key, one per Galois element) is one size-2 ciphertext over all
 * primes per data prime.
 */
export function keySetHeapBytes(params: ResolvedParams, record: KeySetRecord | undefined): number {
  if (!record) return 0
  return keySwitchingKeyBytes(params, (record.kinds.includes('relinKeys') ? 1 : 0) + record.galoisElements.length)
}

/** Heap bytes of `keys` key-switching keys under `params` (a Galois element's, or the relinearization key). */
export function keySwitchingKeyBytes(
  params: Pick<ResolvedParams, 'coeffModulusBits' | 'polyModulusDegree'>,
  keys: number,
): number {
  const primes = params.coeffModulusBits.length
  return keys * Math.max(1, primes - 1) * 2 * primes * params.polyModulusDegree * 8
}

/**
 * A program's cost as the server admits it: with the key set it will run with (a
 * rotation without its own key is priced at its NAF terms; the keys it loads — `loaded`,
 * what it uses of the set — count in the heap), refused with LIMIT_EXCEEDED when its
 * peak heap is above MAX_JOB_HEAP_BYTES.
 */
export function admitProgram(
  analysis: ProgramAnalysis,
  params: ResolvedParams,
  record: KeySetRecord | undefined,
  config: Pick<ServerConfig, 'MAX_JOB_HEAP_BYTES'>,
  loaded?: KeyUse,
): ProgramCost {
  const primes = params.coeffModulusBits.length
  const cost = programCost(analysis.program, {
    scheme: params.scheme,
    polyModulusDegree: params.polyModulusDegree,
    dataPrimes: primes >= 2 ? primes - 1 : 1,
    galoisElements: record?.galoisElements ?? [],
    keyHeapBytes: loaded
      ? keySwitchingKeyBytes(params, (loaded.relinKeys ? 1 : 0) + loaded.galoisElements.length)
      : keySetHeapBytes(params, record),
  })
  if (cost.peakHeapBytes > config.MAX_JOB_HEAP_BYTES) {
    const need = Math.ceil(cost.peakHeapBytes / MiB)
    const limit = Math.floor(config.MAX_JOB_HEAP_BYTES / MiB)
    throw new HeError(
      'LIMIT_EXCEEDED',
      `this program needs about ${need.toLocaleString('en-US')} MiB of WebAssembly heap at its peak; this server's limit is ${limit.toLocaleString('en-US')} MiB per job (MAX_JOB_HEAP_BYTES): relinearize products before multiplying again, read fewer values at once, or use a smaller n or fewer levels`,
      {
        details: {
          peakHeapBytes: cost.peakHeapBytes,
          limit: config.MAX_JOB_HEAP_BYTES,
          setting: 'MAX_JOB_HEAP_BYTES',
        },
      },
    )
  }
  return cost
}

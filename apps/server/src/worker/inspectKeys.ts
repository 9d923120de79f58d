import { createHash } from 'node:crypto'
import { decodeEvaluationKeys, EvaluationKeys } from '@sealbox/he-core'
import type { InspectKeysJob, JobResult } from '../executor/jobMessages.ts'
import { searchKeySetOf } from '../executor/keySetRef.ts'
import { kernelFormName } from '../store/kernelFormBlob.ts'
import { keySetFactsOf } from '../store/keySetFactsOf.ts'
import { kernelFormOf, kernelKeySetOf } from './acquireSearchKeys.ts'
import { checkKeySetStructure } from './checkKeySetStructure.ts'
import type { JobContext, PhaseClock } from './PhaseClock.ts'
import type { SearchService } from './SearchService.ts'

/**
 * Checks an upload before it is stored. Keys for the server's search parameters are
 * pre-parsed against them and loaded into SEAL (a forged payload fails here, not on a
 * later search). Keys for other parameters cannot be loaded here (only their
 * fingerprint is known): their structure is verified in full, without SEAL
 * (`checkKeySetStructure`), and SEAL loads them under their own context when a
 * program first uses them. With the uploading tenant named, keys that hold every Galois
 * element the search rotates by are also converted into the search's kernel form for
 * the node's bytes cache and the durable store (`clock.fullFormKeys`, which the route
 * stores beside the upload): seeds are expanded once per node. For a search that runs in
 * SEAL, its part of the keys goes to the node's bytes cache in SEAL's full form instead.
 */
export async function inspectKeys(job: JobContext, request: InspectKeysJob, clock: PhaseClock): Promise<JobResult> {
  const decoded = clock.time('deserialize', () => decodeEvaluationKeys(request.bytes))
  // Hashed here, not on the event loop: key sets run to tens of megabytes.
  const sha256 = createHash('sha256').update(request.bytes).digest('hex')
  const search = job.search
  if (decoded.fingerprint !== search.ctx.fingerprint) {
    const polyModulusDegree = clock.time('deserialize', () => checkKeySetStructure(decoded, job.setup.maxPolyDegree))
    return { type: 'keysInspected', facts: keySetFactsOf(decoded, { polyModulusDegree }), sha256 }
  }
  const keys = clock.time('deserialize', () => EvaluationKeys.load(search.ctx, decoded))
  try {
    if (request.tenant !== undefined && search.index.kernel !== 'keySwitch' && hasSearchElements(search, keys)) {
      // A search in SEAL: its part of the set in SEAL's full form, so the tenant's first
      // search loads it from the bytes cache instead of inflating the upload from the store.
      const ref = { tenant: request.tenant, sha256 }
      using part = clock.time('deserialize', () =>
        EvaluationKeys.load(search.ctx, decoded, {
          countKernelWords: false,
          onlyGaloisElements: search.galoisElements,
          relinKeys: false,
        }),
      )
      clock.fullFormKeys = {
        keySet: searchKeySetOf(ref, search.galoisElements, 'seal'),
        bytes: part.saveFullForm(search.ctx.seal, decoded),
      }
    } else if (request.tenant !== undefined && search.index.kernel === 'keySwitch' && hasSearchElements(search, keys)) {
      // The seeds are expanded here anyway: keep the search's form, so the tenant's
      // first search copies words into the kernel instead of loading SEAL keys again.
      using words = clock.time('deserialize', () => kernelFormOf(search, keys))
      clock.fullFormKeys = {
        keySet: kernelKeySetOf(search, { tenant: request.tenant, sha256 }),
        bytes: words.toBytes(),
        storeForm: kernelFormName(search.ctx.fingerprint, search.galoisElements),
      }
    }
    return {
      type: 'keysInspected',
      sha256,
      facts: keySetFactsOf(decoded, {
        configId: search.configId,
        polyModulusDegree: search.ctx.params.polyModulusDegree,
      }),
    }
  } finally {
    keys.dispose()
  }
}

function hasSearchElements(search: SearchService, keys: EvaluationKeys): boolean {
  return search.galoisElements.length > 0 && search.galoisElements.every((e) => keys.galoisElements.includes(e))
}

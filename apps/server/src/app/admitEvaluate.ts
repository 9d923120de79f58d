import type { ProgramCost, ResolvedParams } from '@sealbox/he-core'
import type { ServerConfig } from '../config/ServerConfig.ts'
import type { EvaluateJob } from '../executor/jobMessages.ts'
import type { KeySetRecord, KeyStore } from '../store/KeyStore.ts'
import type { ParsedEvaluateRequest } from './parseEvaluateRequest.ts'
import { admitProgram } from './programAdmission.ts'
import { programKeyNeeds } from './programKeyNeeds.ts'
import { programKeysToLoad } from './programKeysToLoad.ts'
import { resolveKeySet } from './resolveKeySet.ts'

/** An evaluate request admitted: the job to queue, its validated parameters and its price. */
export interface EvaluateAdmission {
  job: EvaluateJob
  /** The job's parameters as parsed once on the loop (`HubSubmitOptions.params`). */
  params: ResolvedParams
  cost: ProgramCost
}

/**
 * Admits a parsed evaluate request before it queues: resolves its key set (NOT_FOUND,
 * MISSING_KEY naming every missing key, KEY_SET_MISMATCH), names only the keys the
 * program uses, and prices it with them (LIMIT_EXCEEDED above the per-job heap bound).
 */
export async function admitEvaluate(
  services: { store: KeyStore; config: Pick<ServerConfig, 'MAX_JOB_HEAP_BYTES'> },
  tenant: string,
  parsed: ParsedEvaluateRequest,
): Promise<EvaluateAdmission> {
  const { body, params, analysis } = parsed
  let record: KeySetRecord | undefined
  const keys = await resolveKeySet(
    services.store,
    tenant,
    parsed.keySet,
    programKeyNeeds(analysis, parsed.envelopeKeySetIds, (found) => {
      record = found
    }),
  )
  // Only the keys the program uses are loaded (and cached, and priced when cold), never
  // the whole set: a key set of 700 Galois elements costs a rotateRows(1) one of them.
  const toLoad = record && keys ? programKeysToLoad(analysis, record) : undefined
  const jobKeys =
    !keys || !toLoad
      ? (keys ?? {})
      : toLoad.load === 'none'
        ? { keySetId: keys.keySetId }
        : toLoad.load === 'part'
          ? { ...keys, keyUse: toLoad.use }
          : keys
  const cost = admitProgram(analysis, params, record, services.config, toLoad?.use)
  return {
    job: { type: 'evaluate', params: body.params, program: body.program, inputs: body.inputs, ...jobKeys },
    params,
    cost,
  }
}

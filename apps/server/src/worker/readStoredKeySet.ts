import { createHash } from 'node:crypto'
import { type DecodedEvaluationKeys, decodeEvaluationKeys, type HeContext, HeError, toHeError } from '@sealbox/he-core'
import type { KeyBlobRef } from '../store/KeyStore.ts'
import type { JobContext, PhaseClock } from './PhaseClock.ts'

/**
 * A stored key set read back from the durable store and decoded for `ctx` (booked as
 * keyload, then keydeserialize). The store's bytes were checked on upload: if they no
 * longer match their digest or decode, the damage is the server's, not the client's
 * (INTERNAL, never "re-export the object").
 */
export async function readStoredKeySet(
  job: JobContext,
  ctx: HeContext,
  ref: KeyBlobRef,
  clock: PhaseClock,
): Promise<DecodedEvaluationKeys> {
  const bytes = await clock.timeAsync('keyload', () => job.reader.read(ref))
  const digest = createHash('sha256').update(bytes).digest('hex')
  if (digest !== ref.sha256) {
    throw damagedKeySet(ref, `its bytes hash to ${digest}, the record says ${ref.sha256}`)
  }
  return clock.time('keydeserialize', () => {
    try {
      return decodeEvaluationKeys(bytes, { fingerprint: ctx.fingerprint })
    } catch (error) {
      throw damagedKeySet(ref, toHeError(error).message, error)
    }
  })
}

/**
 * A stored key set that cannot be read back: INTERNAL (the client gets a request id; the
 * details, with the tenant and key set, go to the server log).
 */
function damagedKeySet(ref: KeyBlobRef, why: string, cause?: unknown): HeError {
  return new HeError('INTERNAL', `stored key set "${ref.id}" of tenant "${ref.tenant}" is damaged: ${why}`, {
    ...(cause === undefined ? {} : { cause }),
    details: { tenant: ref.tenant, keySet: ref.id },
  })
}

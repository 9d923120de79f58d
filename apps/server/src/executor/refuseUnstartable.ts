import { HeError } from '@sealbox/he-core'

/**
 * Throws TIMEOUT when a job estimated at `estimatedMs` could not finish in `leftMs`: its
 * request is answered at once and no worker starts what its deadline would stop.
 */
export function refuseUnstartable(estimatedMs: number, leftMs: number): void {
  // A cost that is not a number is the server's bug, not a reason to refuse the request.
  if (leftMs >= estimatedMs || !Number.isFinite(estimatedMs)) return
  const left = Math.max(0, Math.floor(leftMs))
  throw new HeError(
    'TIMEOUT',
    `the request has ${left} ms left of its deadline (REQUEST_TIMEOUT_MS) and its job takes about ${Math.ceil(estimatedMs)} ms: not started; send the body faster or the request again`,
    { details: { leftMs: left, estimatedMs: Math.ceil(estimatedMs), setting: 'REQUEST_TIMEOUT_MS' } },
  )
}

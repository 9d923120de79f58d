import { HeError, type ServerTimingPhases } from '@sealbox/he-core/client'
import type { RequestSample } from './serverBenchProtocol.ts'

/** What a failed `SealboxClient` call tells a load generator about its request. */
export interface ClientFailure {
  /** HTTP status; 0 when no answer came (network error, client timeout). */
  status: number
  /** The server's error code, or CLIENT_TIMEOUT / NETWORK_ERROR when no answer came. */
  code: string
  /** The error reply's `Server-Timing` phases (ms). */
  phases: ServerTimingPhases
}

/**
 * Reads a rejected `SealboxClient` call: an error reply is an HeError whose details
 * carry the HTTP status and the reply's Server-Timing; `signal` timing out first is
 * CLIENT_TIMEOUT; no connection or a dropped one is NETWORK_ERROR.
 */
export function clientFailure(error: unknown, signal?: AbortSignal): ClientFailure {
  if (signal?.aborted && (signal.reason as { name?: unknown } | undefined)?.name === 'TimeoutError') {
    return { status: 0, code: 'CLIENT_TIMEOUT', phases: {} }
  }
  if (!(error instanceof HeError) || error.details?.network === true)
    return { status: 0, code: 'NETWORK_ERROR', phases: {} }
  const { status, timing } = error.details ?? {}
  const phases = typeof timing === 'object' && timing !== null ? (timing as ServerTimingPhases) : {}
  // No status: the client refused what came back (a reply outside the contract).
  return { status: typeof status === 'number' ? status : 0, code: error.code, phases }
}

/** Error codes of failed requests, counted. */
export function errorCodes(samples: readonly Pick<RequestSample, 'status' | 'code'>[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const sample of samples) {
    if (sample.status === 200) continue
    const code = sample.code ?? `HTTP ${sample.status}`
    counts[code] = (counts[code] ?? 0) + 1
  }
  return counts
}

import { TIMING_PHASES } from '@sealbox/he-core/client'

/** Every Server-Timing phase of the server's own work: not the durable store, not CPU (a second count of the same time). */
const SERVER_PHASES = TIMING_PHASES.filter((phase) => phase !== 'store' && phase !== 'cpu')

/**
 * The server's own time on a request: the sum of its wall-clock phases, from decoding the
 * body to encoding the answer. Not Server-Timing's `total`, which starts with the first
 * byte and so holds the upload over a slow link. Every search bench counts it this way.
 */
export function serverTotalMs(timing: Partial<Record<string, number>>): number {
  return SERVER_PHASES.reduce((sum, phase) => sum + (timing[phase] ?? 0), 0)
}

import { TIMING_PHASES, TIMING_TOTAL, type TimingPhase } from './contract/httpContract.ts'

/** Phase durations in milliseconds from a `Server-Timing` header, by the contract's phase names. */
export type ServerTimingPhases = { [P in TimingPhase | typeof TIMING_TOTAL]?: number }

const NAMES: ReadonlySet<string> = new Set([...TIMING_PHASES, TIMING_TOTAL])
const isPhaseName = (name: string): name is keyof ServerTimingPhases => NAMES.has(name)

/**
 * Parses a `Server-Timing` header (`queue;dur=0.4, compute;dur=27.1;desc="x"`) into
 * `{ queue: 0.4, compute: 27.1 }`. Metrics without a duration are 0; malformed parts
 * and metrics the contract does not name (a proxy's own) are skipped. Browsers expose
 * the header to scripts only when the server lists it in `Access-Control-Expose-Headers`
 * (same-origin requests always see it).
 */
export function parseServerTiming(header: string | null | undefined): ServerTimingPhases {
  const phases: ServerTimingPhases = {}
  if (!header) return phases
  for (const part of header.split(',')) {
    const [rawName, ...params] = part.split(';').map((piece) => piece.trim())
    if (!rawName || !isPhaseName(rawName)) continue
    let duration = 0
    for (const param of params) {
      const match = /^dur\s*=\s*"?([0-9.eE+-]+)"?$/.exec(param)
      if (match) {
        const value = Number(match[1])
        if (Number.isFinite(value)) duration = value
      }
    }
    phases[rawName] = (phases[rawName] ?? 0) + duration
  }
  return phases
}

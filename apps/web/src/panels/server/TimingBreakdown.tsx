import { TIMING_PHASES, type TimingPhase } from '@sealbox/he-core/client'
import { formatBytes, formatMs } from '../../ui/format.ts'
import type { ServerWorkReport } from '../../worker/serverProtocol.ts'

/** The phases the bar draws (each has its colour in the stylesheet), by the contract's names. */
const PHASE_LABELS: Partial<Record<TimingPhase, string>> = {
  auth: 'auth',
  queue: 'queue',
  keyload: 'key load',
  deserialize: 'deserialize',
  compute: 'compute',
  serialize: 'serialize',
  store: 'store',
}
/** In the order the server works through them (the contract's). */
const PHASE_ORDER = TIMING_PHASES.filter((phase) => PHASE_LABELS[phase] !== undefined)

/**
 * Where the time of one server call went, from its Server-Timing header: a bar of
 * the server's phases inside the client's round trip, plus bytes each way.
 */
export function TimingBreakdown({ work }: { work: ServerWorkReport }) {
  const phases = PHASE_ORDER.filter((phase) => (work.phases[phase] ?? 0) > 0).map((phase) => ({
    phase,
    ms: work.phases[phase] ?? 0,
  }))
  const serverTotal = work.phases.total ?? phases.reduce((sum, p) => sum + p.ms, 0)
  const scale = Math.max(work.elapsedMs, serverTotal, 0.001)
  return (
    <div className="timing" data-testid="timing">
      <div className="timing-bar" role="img" aria-label="Server-Timing phases within the round trip">
        {phases.map(({ phase, ms }) => (
          <span
            key={phase}
            className={`timing-seg timing-${phase}`}
            style={{ width: `${Math.max(0.8, (ms / scale) * 100)}%` }}
            title={`${PHASE_LABELS[phase] ?? phase}: ${formatMs(ms)}`}
          />
        ))}
      </div>
      <dl className="timing-legend">
        {phases.map(({ phase, ms }) => (
          <div key={phase}>
            <dt>
              <span className={`timing-dot timing-${phase}`} aria-hidden="true" />
              {PHASE_LABELS[phase] ?? phase}
            </dt>
            <dd className="mono">{formatMs(ms)}</dd>
          </div>
        ))}
        <div>
          <dt>server total</dt>
          <dd className="mono">{formatMs(serverTotal)}</dd>
        </div>
        <div>
          <dt>round trip</dt>
          <dd className="mono">{formatMs(work.elapsedMs)}</dd>
        </div>
        <div>
          <dt>up / down</dt>
          <dd className="mono">
            {formatBytes(work.bytesUp)} / {formatBytes(work.bytesDown)}
          </dd>
        </div>
      </dl>
    </div>
  )
}

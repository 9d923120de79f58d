import { useEffect, useState } from 'react'
import { formatBytes, formatMs } from '../ui/format.ts'
import { Spinner } from '../ui/Spinner.tsx'
import { useActivity, useSandbox } from './SandboxContext.tsx'

/** Work that was not expected to be long becomes cancellable after this long. */
const CANCEL_AFTER_MS = 3000

/** Milliseconds since `startedAt`, re-rendered ten times a second while `running`. */
function useElapsed(startedAt: number | undefined): number {
  const [now, setNow] = useState(() => performance.now())
  useEffect(() => {
    if (startedAt === undefined) return
    const timer = setInterval(() => setNow(performance.now()), 100)
    return () => clearInterval(timer)
  }, [startedAt])
  return startedAt === undefined ? 0 : Math.max(0, now - startedAt)
}

/**
 * The status strip under the header: what the SEAL worker is doing right now, with a
 * live clock and a Cancel button for long work, the WASM heap size, and whether the
 * workspace is saved. The clock ticking during key generation is the visible proof
 * that the page's thread is free.
 */
export function ActivityBar() {
  const sandbox = useSandbox()
  const activity = useActivity()
  const { job } = activity
  const elapsed = useElapsed(job?.startedAt)
  return (
    // While a job runs the bar sticks to the top of the window: at 390 px the control that started it is far below.
    <div className={job ? 'activity-bar activity-bar-busy' : 'activity-bar'} aria-live="polite">
      <div className="activity-main">
        {job ? (
          <>
            <Spinner label={job.label} />
            <span className="activity-label" data-testid="job-label">
              {job.label}
              {job.progress
                ? ` — ${job.progress.label} (step ${Math.min(job.progress.done + 1, job.progress.total)} of ${job.progress.total})`
                : ''}
            </span>
            <span className="activity-clock mono">{formatMs(elapsed)}</span>
            {job.progress ? (
              // No value while the first step runs: SEAL cannot report inside one call, so show motion, not 0%.
              job.progress.done === 0 ? (
                <progress className="activity-progress" />
              ) : (
                <progress className="activity-progress" max={job.progress.total} value={job.progress.done} />
              )
            ) : null}
            {/* Anything that runs long can be cancelled: the worker is restarted and the workspace restored. */}
            {job.cancellable || elapsed > CANCEL_AFTER_MS ? (
              <button type="button" className="button-small" onClick={() => sandbox.cancel()}>
                Cancel
              </button>
            ) : null}
          </>
        ) : (
          <WorkerStatus />
        )}
      </div>
      <div className="activity-side">
        {activity.heapBytes !== undefined ? (
          <span
            className="activity-heap"
            data-testid="heap-size"
            title="WebAssembly heap of the SEAL worker (it only grows; cancel or reload to reset it)"
          >
            WASM heap <span className="mono">{formatBytes(activity.heapBytes)}</span>
          </span>
        ) : null}
        <span className={`save-state save-${activity.saved}`} title={activity.saveError}>
          {activity.lease === 'readOnly'
            ? 'Read-only (open in another tab)'
            : activity.saved === 'saving' || activity.saved === 'pending'
              ? 'Saving…'
              : activity.saved === 'saved'
                ? 'Saved in this browser'
                : activity.saved === 'failed'
                  ? 'Not saved'
                  : ''}
        </span>
      </div>
    </div>
  )
}

function WorkerStatus() {
  const activity = useActivity()
  switch (activity.worker) {
    case 'starting':
      return (
        <>
          <Spinner label="Starting" />
          <span className="activity-label">Starting the SEAL worker…</span>
        </>
      )
    case 'restoring':
      return (
        <>
          <Spinner label="Restoring" />
          <span className="activity-label">Loading SEAL and restoring your workspace…</span>
        </>
      )
    case 'ready':
      return (
        <span className="activity-label activity-ready" data-testid="worker-ready">
          <span className="dot dot-ok" aria-hidden="true" /> SEAL worker ready
        </span>
      )
    case 'failed':
      return (
        <span className="activity-label activity-failed" role="alert">
          <span className="dot dot-bad" aria-hidden="true" /> The SEAL worker failed: {activity.workerError}
        </span>
      )
    default: {
      const never: never = activity.worker
      return never
    }
  }
}

import { readFileSync } from 'node:fs'

/*
 * The calling thread's CPU time, exact, or nothing.
 *
 * `process.threadCpuUsage()` (getrusage) moves in scheduler ticks — 4 ms steps at Linux's
 * usual HZ=250 — so a 3 ms job reads as 0 or 4 ms, and the median of a few such jobs can
 * be 0 (the cost model's calibration divided by it). Linux keeps each thread's time on a
 * CPU in nanoseconds (`/proc/thread-self/schedstat`: the sum, the time spent waiting for
 * a CPU, and the count of stretches run), but books the running thread's latest stretch
 * only at a tick or when it leaves the CPU. So a reading first leaves the CPU — a futex
 * wait of a few microseconds — and is taken only once the stretch count shows the thread
 * really was switched out and back: a wait whose timeout had already passed when the
 * kernel got to it returns without a switch, and the sum it shows would miss the stretch
 * (a short job between two such readings would read 0). The wait grows until a switch is
 * seen; it costs about 0.1 ms of wall time.
 *
 * Where the kernel gives no such file (not Linux), there is no reading at all, rather
 * than the tick clock: a job's CPU time is then unknown, never a multiple of 4 ms.
 */

const SCHEDSTAT = '/proc/thread-self/schedstat'
const parked = new Int32Array(new SharedArrayBuffer(4))
/** How long each attempt leaves the CPU, ms: the first almost always switches. */
const PARK_MS = [0.005, 0.05, 0.5, 5] as const

interface Schedstat {
  /** CPU time booked so far, ns (0 for a thread never switched out or ticked yet). */
  ns: number
  /** Stretches on a CPU so far. */
  stretches: number
}

function readSchedstat(): Schedstat | undefined {
  let text: string
  try {
    text = readFileSync(SCHEDSTAT, 'latin1')
  } catch {
    return undefined
  }
  const [ns, , stretches] = text.trim().split(' ').map(Number)
  if (!Number.isSafeInteger(ns) || !Number.isSafeInteger(stretches) || (ns as number) < 0) return undefined
  return { ns: ns as number, stretches: stretches as number }
}

/** Whether this system gives exact per-thread CPU time (Linux's schedstat, with its count of stretches). */
export const EXACT_THREAD_CPU = (readSchedstat()?.stretches ?? 0) > 0

/**
 * This thread's CPU time so far (ms), exact to microseconds: read after the thread has
 * left the CPU and come back, so the kernel has booked everything it ran. Undefined
 * where there is no exact clock, or if no switch could be seen (never in practice).
 */
export function threadCpuMs(): number | undefined {
  const before = EXACT_THREAD_CPU ? readSchedstat() : undefined
  if (!before) return undefined
  for (const ms of PARK_MS) {
    // Nobody ever notifies this cell: the wait only takes the thread off the CPU.
    Atomics.wait(parked, 0, 0, ms)
    const after = readSchedstat()
    if (!after) return undefined
    if (after.stretches > before.stretches) return after.ns / 1e6
  }
  return undefined
}

/** A running measurement of this thread's CPU time. */
export interface ThreadCpuClock {
  /** CPU ms since the clock started: exact and above 0 for any work done meanwhile; undefined where unknown. */
  elapsedMs(): number | undefined
}

/**
 * Starts measuring this thread's CPU time. Both ends are exact readings of the same
 * clock, each taken after a switch, so work done in between always reads above 0.
 */
export function startThreadCpu(): ThreadCpuClock {
  const start = threadCpuMs()
  return {
    elapsedMs() {
      if (start === undefined) return undefined
      const end = threadCpuMs()
      return end === undefined ? undefined : end - start
    },
  }
}

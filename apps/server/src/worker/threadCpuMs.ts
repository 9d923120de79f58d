import { readFileSync } from 'node:fs'

/*
 * The calling thread's CPU time, precise enough for one job.
 *
 * `process.threadCpuUsage()` (getrusage) moves in scheduler ticks — 4 ms steps at Linux's
 * usual HZ=250 — so a 3 ms job reads as 0 or 4 ms, and the median of a few such jobs can
 * be 0 (the cost model's calibration divided by it). Linux keeps each thread's time on a
 * CPU in nanoseconds (`/proc/thread-self/schedstat`, first field), but books the running
 * thread's latest stretch only at a tick or when it leaves the CPU. `threadCpuMs()`
 * therefore leaves the CPU first — a futex wait of a few microseconds, which costs
 * about 0.1 ms of wall time once timer slack is counted — and then reads the exact sum.
 * Reading right after the thread was woken (a job's start) needs no wait: leaving the
 * CPU booked everything. Where /proc is missing, the tick clock is the fallback.
 */

const SCHEDSTAT = '/proc/thread-self/schedstat'
const parked = new Int32Array(new SharedArrayBuffer(4))

function schedstatMs(): number | undefined {
  try {
    const ns = Number(readFileSync(SCHEDSTAT, 'latin1').split(' ', 1)[0])
    return Number.isFinite(ns) && ns > 0 ? ns / 1e6 : undefined
  } catch {
    return undefined
  }
}

let precise = schedstatMs() !== undefined

function tickClockMs(): number {
  const usage = process.threadCpuUsage()
  return (usage.user + usage.system) / 1000
}

/**
 * This thread's CPU time (ms) as of its last switch off the CPU: exact at the start of a
 * job the thread was woken for; use `threadCpuMs()` at the end.
 */
export function bookedThreadCpuMs(): number {
  if (precise) {
    const ms = schedstatMs()
    if (ms !== undefined) return ms
    precise = false
  }
  return tickClockMs()
}

/** This thread's CPU time so far (ms), exact to microseconds on Linux (costs ~0.1 ms of wall time). */
export function threadCpuMs(): number {
  // Off the CPU for a moment (nobody ever notifies this cell): the kernel books the stretch.
  if (precise) Atomics.wait(parked, 0, 0, 0.005)
  return bookedThreadCpuMs()
}

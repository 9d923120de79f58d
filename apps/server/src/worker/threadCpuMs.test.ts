import { Worker } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'
import { EXACT_THREAD_CPU, startThreadCpu, threadCpuMs } from './threadCpuMs.ts'

/** This thread's exact CPU ms (the tests below need the exact clock: Linux). */
function exactMs(): number {
  const ms = threadCpuMs()
  if (ms === undefined) throw new Error('no exact per-thread CPU clock')
  return ms
}

/** Spins this thread until its own CPU clock has advanced by `ms`; returns what the tick clock saw. */
function spinFor(ms: number): number {
  const tickStart = process.threadCpuUsage()
  const start = exactMs()
  while (exactMs() - start < ms) {
    // busy: every read is CPU time of this thread
  }
  const tick = process.threadCpuUsage(tickStart)
  return (tick.user + tick.system) / 1000
}

describe.runIf(process.platform === 'linux')('threadCpuMs', () => {
  it('is exact on Linux, never goes back, and agrees with the tick clock over a long spin', () => {
    expect(EXACT_THREAD_CPU).toBe(true)
    let last = exactMs()
    for (let i = 0; i < 1000; i++) {
      const now = exactMs()
      expect(now).toBeGreaterThanOrEqual(last)
      last = now
    }
    // 200 ms of this thread's CPU: the tick clock (4 ms steps) must see about the same.
    const tickMs = spinFor(200)
    expect(tickMs).toBeGreaterThan(140)
    expect(tickMs).toBeLessThan(280)
  })

  it('resolves a job far shorter than a scheduler tick: above 0, every time, in a row', () => {
    // Back to back, as a worker's jobs are: each start is the previous end's clock.
    for (let round = 0; round < 500; round++) {
      const cpu = startThreadCpu()
      let x = 0
      for (let i = 0; i < 2_000; i++) x += Math.sqrt(i)
      const spent = cpu.elapsedMs()
      expect(x).toBeGreaterThan(0)
      expect(spent).toBeGreaterThan(0)
      expect(spent).toBeLessThan(1000)
    }
  })

  it('counts only the calling thread: a worker spinning beside it does not move this clock', async () => {
    const worker = new Worker(
      'const { parentPort } = require("node:worker_threads"); parentPort.once("message", () => { const t = Date.now(); while (Date.now() - t < 300); parentPort.postMessage("done") }); parentPort.postMessage("ready")',
      { eval: true },
    )
    await new Promise((resolve) => worker.once('message', resolve))
    const cpu = startThreadCpu()
    worker.postMessage('go')
    // This thread waits (no CPU) while the worker burns 300 ms of its own.
    await new Promise((resolve) => worker.once('message', resolve))
    const spent = cpu.elapsedMs()
    await worker.terminate()
    expect(spent).toBeGreaterThan(0)
    expect(spent).toBeLessThan(150)
  })
})

import { Worker } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'
import { threadCpuMs } from './threadCpuMs.ts'

/** Spins this thread until its own CPU clock has advanced by `ms`; returns what the tick clock saw. */
function spinFor(ms: number): number {
  const tickStart = process.threadCpuUsage()
  const start = threadCpuMs()
  while (threadCpuMs() - start < ms) {
    // busy: every read is CPU time of this thread
  }
  const tick = process.threadCpuUsage(tickStart)
  return (tick.user + tick.system) / 1000
}

describe('threadCpuMs', () => {
  it('never goes back and agrees with the tick clock over a long spin', () => {
    let last = threadCpuMs()
    for (let i = 0; i < 1000; i++) {
      const now = threadCpuMs()
      expect(now).toBeGreaterThanOrEqual(last)
      last = now
    }
    // 200 ms of this thread's CPU: the tick clock (4 ms steps) must see about the same.
    const tickMs = spinFor(200)
    expect(tickMs).toBeGreaterThan(140)
    expect(tickMs).toBeLessThan(280)
  })

  it('resolves a job far shorter than a scheduler tick (not 0), every time', () => {
    for (let round = 0; round < 20; round++) {
      const start = threadCpuMs()
      let x = 0
      for (let i = 0; i < 20_000; i++) x += Math.sqrt(i)
      const spent = threadCpuMs() - start
      expect(x).toBeGreaterThan(0)
      if (process.platform === 'linux') expect(spent).toBeGreaterThan(0)
      expect(spent).toBeLessThan(1000)
    }
  })

  it('counts only the calling thread: a worker spinning beside it does not move this clock', async () => {
    const worker = new Worker(
      'const { parentPort } = require("node:worker_threads"); parentPort.once("message", () => { const t = Date.now(); while (Date.now() - t < 300); parentPort.postMessage("done") }); parentPort.postMessage("ready")',
      { eval: true },
    )
    await new Promise((resolve) => worker.once('message', resolve))
    const before = threadCpuMs()
    worker.postMessage('go')
    // This thread waits (no CPU) while the worker burns 300 ms of its own.
    await new Promise((resolve) => worker.once('message', resolve))
    const spent = threadCpuMs() - before
    await worker.terminate()
    expect(spent).toBeLessThan(150)
  })
})

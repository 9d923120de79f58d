import { describe, expect, it } from 'vitest'
import { runLoadPhase } from './runLoadPhase.ts'

/** A send whose answers the test releases by hand, so "in flight" is a fact the test controls. */
function heldSends() {
  const held: Array<() => void> = []
  let inFlight = 0
  let maxInFlight = 0
  const send = (index: number) =>
    new Promise<number>((resolve) => {
      inFlight++
      maxInFlight = Math.max(maxInFlight, inFlight)
      held.push(() => {
        inFlight--
        resolve(index)
      })
    })
  const releaseAll = async () => {
    // Each release lets its lane send the next request; keep going until nothing is held.
    for (;;) {
      await Promise.resolve()
      const next = held.shift()
      if (!next) {
        await new Promise((resolve) => setImmediate(resolve))
        if (held.length === 0) return
        continue
      }
      next()
    }
  }
  return { send, releaseAll, maxInFlight: () => maxInFlight }
}

describe('runLoadPhase', () => {
  it('sends every request once with at most `concurrency` in flight, and stops by count', async () => {
    const sends = heldSends()
    const phase = runLoadPhase({ concurrency: 3, total: 10, deadline: Number.POSITIVE_INFINITY, send: sends.send })
    await sends.releaseAll()
    const { samples, stoppedBy } = await phase
    expect(stoppedBy).toBe('requests')
    expect([...samples].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    expect(sends.maxInFlight()).toBe(3)
  })

  it('never opens more lanes than requests', async () => {
    const sends = heldSends()
    const phase = runLoadPhase({ concurrency: 8, total: 2, deadline: Number.POSITIVE_INFINITY, send: sends.send })
    await sends.releaseAll()
    expect((await phase).samples).toHaveLength(2)
    expect(sends.maxInFlight()).toBe(2)
  })

  it('sends nothing more once the deadline has passed, and says it stopped by time', async () => {
    let deadline = Number.POSITIVE_INFINITY
    const { samples, stoppedBy } = await runLoadPhase({
      concurrency: 1,
      total: 100,
      get deadline() {
        return deadline
      },
      send: async (index) => {
        // The fourth answer moves the deadline into the past: no fifth request leaves.
        if (index === 3) deadline = performance.now() - 1
        return index
      },
    })
    expect(stoppedBy).toBe('time')
    expect(samples).toEqual([0, 1, 2, 3])
  })
})

import { describe, expect, it } from 'vitest'
import { chooseWorker } from './chooseWorker.ts'

const holds = new Map([
  ['thread-1', new Set(['t/a'])],
  ['thread-2', new Set(['t/b'])],
])
const job = (keys: string | undefined, bypassed = 0) => ({ keys, bypassed })

describe('chooseWorker', () => {
  it('round-robin takes the first job on the next worker in rotation, keys ignored', () => {
    const heads = [job('t/a'), job('t/b')]
    expect(chooseWorker('round-robin', heads, ['thread-1', 'thread-2'], holds, 'thread-1', 4)).toEqual({
      job: 0,
      worker: 'thread-2',
    })
    expect(chooseWorker('round-robin', heads, ['thread-1', 'thread-2'], holds, 'thread-2', 4)).toEqual({
      job: 0,
      worker: 'thread-1',
    })
  })

  it('affinity sends a job to the idle worker that holds its keys', () => {
    expect(chooseWorker('affinity', [job('t/a')], ['thread-1', 'thread-2'], holds, '', 4)).toEqual({
      job: 0,
      worker: 'thread-1',
    })
    // thread-1 is busy: the b job may go ahead to thread-2, where b is held.
    expect(chooseWorker('affinity', [job('t/a'), job('t/b')], ['thread-2'], holds, '', 4)).toEqual({
      job: 1,
      worker: 'thread-2',
    })
  })

  it('affinity loads a cold key set on the worker the queue needs least, before duplicating a held one', () => {
    expect(chooseWorker('affinity', [job('t/a'), job('t/cold')], ['thread-3', 'thread-4'], holds, '', 4)).toEqual({
      job: 1,
      worker: 'thread-3',
    })
    // thread-2 holds b, which the queue wants next: the cold load goes to thread-3.
    const queue = [job('t/a'), job('t/cold'), job('t/b', 0)]
    const busy2 = new Map([...holds, ['thread-3', new Set<string>()]])
    expect(chooseWorker('affinity', queue.slice(0, 2), ['thread-3'], busy2, '', 4)).toEqual({
      job: 1,
      worker: 'thread-3',
    })
    expect(chooseWorker('affinity', [job(undefined)], ['thread-2', 'thread-3'], holds, '', 4)?.job).toBe(0)
  })

  it('affinity never leaves a worker idle and never passes a job over more than maxBypass times', () => {
    // Both heads' keys sit on the busy thread-1: the first head goes to idle thread-2 (load-aware fallback).
    const busyHolds = new Map([['thread-1', new Set(['t/a', 't/c'])]])
    expect(chooseWorker('affinity', [job('t/a'), job('t/c')], ['thread-2'], busyHolds, '', 4)).toEqual({
      job: 0,
      worker: 'thread-2',
    })
    // A job passed over 4 times goes first even though a later job's keys are on the idle worker.
    expect(chooseWorker('affinity', [job('t/a', 4), job('t/b')], ['thread-2'], holds, '', 4)).toEqual({
      job: 0,
      worker: 'thread-2',
    })
  })

  it('pairs a job only with a worker whose heap budget takes it, and nothing when none does', () => {
    // thread-1 holds a's keys but its heap cannot take job 0 on top: job 0 goes to thread-2.
    const notOnOne = (job: number, worker: string) => !(job === 0 && worker === 'thread-1')
    expect(chooseWorker('affinity', [job('t/a')], ['thread-1', 'thread-2'], holds, '', 4, notOnOne)).toEqual({
      job: 0,
      worker: 'thread-2',
    })
    // Job 0 fits no idle worker: a later job that fits goes, job 0 is passed over.
    const bigFirst = (job: number) => job !== 0
    expect(chooseWorker('affinity', [job('t/a'), job('t/b')], ['thread-1'], holds, '', 4, bigFirst)).toEqual({
      job: 1,
      worker: 'thread-1',
    })
    // Passed over maxBypass times, it must go next: nothing runs until a worker fits it.
    expect(chooseWorker('affinity', [job('t/a', 4), job('t/b')], ['thread-1'], holds, '', 4, bigFirst)).toBeUndefined()
    expect(chooseWorker('affinity', [job('t/a')], ['thread-1', 'thread-2'], holds, '', 4, () => false)).toBeUndefined()
    expect(chooseWorker('round-robin', [job('t/a')], ['thread-1', 'thread-2'], holds, '', 4, notOnOne)).toEqual({
      job: 0,
      worker: 'thread-2',
    })
    expect(chooseWorker('round-robin', [job('t/a')], ['thread-1'], holds, '', 4, notOnOne)).toBeUndefined()
  })
})

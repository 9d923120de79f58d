import process from 'node:process'
import { describe, expect, it } from 'vitest'
import { cpuShares, parseThreadStat, readThreadCpu, type ThreadCpu, threadCpuSpent, totalCpu } from './threadCpu.ts'

// A real line of /proc/<pid>/task/<tid>/stat: utime 1200 and stime 34 ticks (fields 14, 15).
const stat = (name: string, utime: number, stime: number) =>
  `23029 (${name}) S 1 23017 1 0 -1 4194368 12 0 0 0 ${utime} ${stime} 0 0 20 0 9 0 4137 1299066880 30011 18446744073709551615`

describe('thread CPU from /proc', () => {
  it('reads the name (even with spaces and parentheses) and user + system time', () => {
    expect(parseThreadStat(stat('WorkerThread', 1200, 34))).toEqual({ name: 'WorkerThread', cpuMs: 12_340 })
    expect(parseThreadStat(stat('node (x) y', 1, 2))).toEqual({ name: 'node (x) y', cpuMs: 30 })
    expect(parseThreadStat('')).toBeUndefined()
  })

  it('splits what each kind of thread spent between two reads', () => {
    const read = (entries: [string, ThreadCpu][]) => new Map(entries)
    const before = read([
      ['1', { name: 'MainThread', cpuMs: 100 }],
      ['2', { name: 'WorkerThread', cpuMs: 500 }],
      ['3', { name: 'V8Worker', cpuMs: 50 }],
    ])
    const after = read([
      ['1', { name: 'MainThread', cpuMs: 200 }],
      ['2', { name: 'WorkerThread', cpuMs: 1000 }],
      ['3', { name: 'V8Worker', cpuMs: 250 }],
      // Born in between: all of its time counts.
      ['4', { name: 'libuv-worker', cpuMs: 200 }],
    ])
    const spent = threadCpuSpent(before, after)
    expect(spent).toEqual({ workers: 500, eventLoop: 100, v8Helpers: 200, other: 200 })
    expect(totalCpu(spent)).toBe(1000)
    expect(cpuShares(spent)).toEqual({ workers: 0.5, eventLoop: 0.1, v8Helpers: 0.2, other: 0.2 })
    expect(cpuShares(threadCpuSpent(before, before))).toBeUndefined()
  })

  it("reads this process's threads (Linux), and nothing for a process that is not there", async () => {
    const threads = await readThreadCpu(process.pid)
    expect(threads?.size).toBeGreaterThan(0)
    for (const thread of threads?.values() ?? []) expect(Number.isFinite(thread.cpuMs)).toBe(true)
    expect(await readThreadCpu(2 ** 30)).toBeUndefined()
  })
})

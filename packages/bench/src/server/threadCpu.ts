import { readdir, readFile } from 'node:fs/promises'

/** One thread's name and CPU time (user + system), from `/proc/<pid>/task/<tid>/stat`. */
export interface ThreadCpu {
  name: string
  cpuMs: number
}

/** Where a Node server's CPU time goes, as fractions of the whole process's over a window. */
export interface ThreadCpuShares {
  /** Worker threads (Node names them `WorkerThread`): the HE jobs and their messaging. */
  workers: number
  /** The main thread: HTTP, the event loop, the route handlers. */
  eventLoop: number
  /** V8's platform threads (`V8Worker`): concurrent garbage collection, background compiling. */
  v8Helpers: number
  /** Everything else (libuv's thread pool, signal and inspector threads). */
  other: number
}

// USER_HZ: the unit of utime/stime in /proc; 100 on every Linux build Node supports.
const TICK_MS = 10

/** Reads one `/proc/…/stat` line: the name in parentheses, then utime and stime (fields 14 and 15). */
export function parseThreadStat(line: string): ThreadCpu | undefined {
  const open = line.indexOf('(')
  const close = line.lastIndexOf(')')
  if (open === -1 || close < open) return undefined
  const fields = line.slice(close + 2).split(' ')
  const user = Number(fields[11])
  const system = Number(fields[12])
  if (!Number.isFinite(user) || !Number.isFinite(system)) return undefined
  return { name: line.slice(open + 1, close), cpuMs: (user + system) * TICK_MS }
}

/** Every thread of process `pid` by thread id; undefined where /proc cannot be read (not Linux, process gone). */
export async function readThreadCpu(pid: number): Promise<Map<string, ThreadCpu> | undefined> {
  try {
    const threads = new Map<string, ThreadCpu>()
    for (const tid of await readdir(`/proc/${pid}/task`)) {
      // A thread that ends between the listing and the read is simply left out.
      const line = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').catch(() => '')
      const thread = parseThreadStat(line)
      if (thread) threads.set(tid, thread)
    }
    return threads
  } catch {
    return undefined
  }
}

/** The CPU each kind of thread spent between two reads, as fractions of the total (threads born in between count from 0). */
export function threadCpuShares(
  before: ReadonlyMap<string, ThreadCpu>,
  after: ReadonlyMap<string, ThreadCpu>,
): ThreadCpuShares | undefined {
  const spent: ThreadCpuShares = { workers: 0, eventLoop: 0, v8Helpers: 0, other: 0 }
  for (const [tid, thread] of after) {
    const delta = Math.max(0, thread.cpuMs - (before.get(tid)?.cpuMs ?? 0))
    const kind: keyof ThreadCpuShares =
      thread.name === 'WorkerThread'
        ? 'workers'
        : thread.name === 'MainThread'
          ? 'eventLoop'
          : thread.name.startsWith('V8Worker')
            ? 'v8Helpers'
            : 'other'
    spent[kind] += delta
  }
  const total = spent.workers + spent.eventLoop + spent.v8Helpers + spent.other
  if (total <= 0) return undefined
  return {
    workers: spent.workers / total,
    eventLoop: spent.eventLoop / total,
    v8Helpers: spent.v8Helpers / total,
    other: spent.other / total,
  }
}

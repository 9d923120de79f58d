import { readdir, readFile } from 'node:fs/promises'

/** One thread's name and CPU time (user + system), from `/proc/<pid>/task/<tid>/stat`. */
export interface ThreadCpu {
  name: string
  cpuMs: number
}

/** CPU time by kind of thread of a Node process: ms spent, or fractions of the total. */
export interface ThreadCpuSplit {
  /** Worker threads (Node names them `WorkerThread`): a server's HE jobs and their messaging. */
  workers: number
  /** The main thread: a server's HTTP, event loop and routes (in a benchmark, its own work). */
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

/** The CPU (ms) each kind of thread spent between two reads (threads born in between count from 0). */
export function threadCpuSpent(
  before: ReadonlyMap<string, ThreadCpu>,
  after: ReadonlyMap<string, ThreadCpu>,
): ThreadCpuSplit {
  const spent: ThreadCpuSplit = { workers: 0, eventLoop: 0, v8Helpers: 0, other: 0 }
  for (const [tid, thread] of after) {
    const delta = Math.max(0, thread.cpuMs - (before.get(tid)?.cpuMs ?? 0))
    const kind: keyof ThreadCpuSplit =
      thread.name === 'WorkerThread'
        ? 'workers'
        : thread.name === 'MainThread'
          ? 'eventLoop'
          : thread.name.startsWith('V8Worker')
            ? 'v8Helpers'
            : 'other'
    spent[kind] += delta
  }
  return spent
}

/** All threads together (ms). */
export function totalCpu(split: ThreadCpuSplit): number {
  return split.workers + split.eventLoop + split.v8Helpers + split.other
}

/** Each kind's fraction of the total; undefined when nothing was spent. */
export function cpuShares(split: ThreadCpuSplit): ThreadCpuSplit | undefined {
  const total = totalCpu(split)
  if (total <= 0) return undefined
  return {
    workers: split.workers / total,
    eventLoop: split.eventLoop / total,
    v8Helpers: split.v8Helpers / total,
    other: split.other / total,
  }
}

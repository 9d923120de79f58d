import process from 'node:process'

/**
 * This thread's CPU time in ms. The benchmark machine is shared (other engineers'
 * builds, browsers, tests): CPU time counts only the time a core actually ran this
 * query, where wall-clock time also counts waiting for a core. Tick-based: average it.
 */
export function threadCpuMs(): number {
  const usage = process.threadCpuUsage()
  return (usage.user + usage.system) / 1000
}

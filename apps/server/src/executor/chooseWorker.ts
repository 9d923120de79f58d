/** How the scheduler picks a job's worker. */
export type SchedulingPolicy = 'affinity' | 'round-robin'

/** What the choice needs to know of a queued job. */
export interface QueuedJob {
  /** The cache key of its evaluation keys (`keySetCacheKey`), if it uses stored keys. */
  keys: string | undefined
  bypassed: number
}

/** Which head (index into `heads`) goes to which idle worker. */
export interface WorkerChoice {
  job: number
  worker: string
}

/**
 * Pairs one idle worker with one of the queue heads (tenants in fair order).
 *
 * `round-robin`: the first head, on the next idle worker in rotation — keys ignored,
 * the comparison baseline.
 *
 * `affinity` (locality first):
 * 1. a head passed over `maxBypass` times goes now (no tenant starves for locality),
 *    to an idle worker that holds its keys if there is one;
 * 2. else the first head whose keys an idle worker holds goes to that worker — so the
 *    queued queries of one key set run, one after another, where it is deserialized;
 * 3. else the first head that needs no stored keys, or whose keys no worker holds (a
 *    cold load is unavoidable), goes to the idle worker holding the fewest keys the
 *    queue wants (then the fewest keys at all, then in rotation);
 * 4. else every head's keys sit on busy workers: rather than leave a worker idle, the
 *    first head goes to it (load-aware fallback: a hot key set spreads to more workers).
 */
export function chooseWorker(
  policy: SchedulingPolicy,
  heads: readonly QueuedJob[],
  idle: readonly string[],
  holds: ReadonlyMap<string, ReadonlySet<string>>,
  lastWorker: string,
  maxBypass: number,
): WorkerChoice {
  const sorted = [...idle].sort()
  if (policy === 'round-robin') {
    const next = sorted.find((worker) => worker > lastWorker) ?? (sorted[0] as string)
    return { job: 0, worker: next }
  }
  const holder = (keys: string | undefined, among: readonly string[]) =>
    keys === undefined ? undefined : among.find((worker) => holds.get(worker)?.has(keys))
  // For a load: the idle worker whose keys the queue wants least, then the one holding
  // fewest keys (cold loads spread over the workers), then the next in rotation.
  const wanted = (worker: string) => heads.filter((head) => head.keys && holds.get(worker)?.has(head.keys)).length
  const rotated = [
    ...sorted.filter((worker) => worker > lastWorker),
    ...sorted.filter((worker) => worker <= lastWorker),
  ]
  const cost = (worker: string) => wanted(worker) * 1e6 + (holds.get(worker)?.size ?? 0)
  const leastWanted = () =>
    rotated.reduce((best, worker) => (cost(worker) < cost(best) ? worker : best), rotated[0] as string)

  const first = heads[0] as QueuedJob
  if (first.bypassed >= maxBypass) return { job: 0, worker: holder(first.keys, sorted) ?? leastWanted() }
  for (const [job, head] of heads.entries()) {
    const worker = holder(head.keys, sorted)
    if (worker) return { job, worker }
  }
  const everyone = [...holds.keys()]
  for (const [job, head] of heads.entries()) {
    if (head.keys === undefined || !holder(head.keys, everyone)) return { job, worker: leastWanted() }
  }
  return { job: 0, worker: leastWanted() }
}

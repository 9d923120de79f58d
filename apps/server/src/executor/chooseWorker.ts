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

/** Whether queue head `job` (an index into `heads`) may run on `worker` now (its heap budget). */
export type WorkerFit = (job: number, worker: string) => boolean

const everywhere: WorkerFit = () => true

/**
 * Pairs one idle worker with one of the queue heads (tenants in fair order), among the
 * pairs `fits` allows (a job whose estimated peak heap the worker cannot take on top of
 * its own is not run there); undefined when no head fits any idle worker.
 *
 * `round-robin`: the first head, on the next idle worker in rotation that fits it — keys
 * ignored, the comparison baseline.
 *
 * `affinity` (locality first):
 * 1. a head passed over `maxBypass` times goes now (no tenant starves for locality),
 *    to an idle worker that holds its keys if there is one — and when none fits it,
 *    nothing goes (room must be made for it first);
 * 2. else the first head whose keys an idle worker holds goes to that worker — so the
 *    queued queries of one key set run, one after another, where it is deserialized;
 * 3. else the first head that needs no stored keys, or whose keys no worker holds (a
 *    cold load is unavoidable), goes to the idle worker holding the fewest keys the
 *    queue wants (then the fewest keys at all, then in rotation);
 * 4. else every head's keys sit on busy workers: rather than leave a worker idle, the
 *    first head that fits one goes to it (load-aware fallback: a hot key set spreads to
 *    more workers).
 */
export function chooseWorker(
  policy: SchedulingPolicy,
  heads: readonly QueuedJob[],
  idle: readonly string[],
  holds: ReadonlyMap<string, ReadonlySet<string>>,
  lastWorker: string,
  maxBypass: number,
  fits: WorkerFit = everywhere,
): WorkerChoice | undefined {
  const sorted = [...idle].sort()
  const rotated = [
    ...sorted.filter((worker) => worker > lastWorker),
    ...sorted.filter((worker) => worker <= lastWorker),
  ]
  const fitting = (job: number, among: readonly string[]) => among.filter((worker) => fits(job, worker))
  if (policy === 'round-robin') {
    const next = fitting(0, rotated)[0]
    return next === undefined ? undefined : { job: 0, worker: next }
  }
  const holder = (keys: string | undefined, among: readonly string[]) =>
    keys === undefined ? undefined : among.find((worker) => holds.get(worker)?.has(keys))
  // For a load: the idle worker whose keys the queue wants least, then the one holding
  // fewest keys (cold loads spread over the workers), then the next in rotation.
  const wanted = (worker: string) => heads.filter((head) => head.keys && holds.get(worker)?.has(head.keys)).length
  const cost = (worker: string) => wanted(worker) * 1e6 + (holds.get(worker)?.size ?? 0)
  const leastWanted = (among: readonly string[]) =>
    among.reduce<string | undefined>(
      (best, worker) => (best === undefined || cost(worker) < cost(best) ? worker : best),
      undefined,
    )

  const first = heads[0] as QueuedJob
  if (first.bypassed >= maxBypass) {
    const candidates = fitting(0, rotated)
    const worker = holder(first.keys, [...candidates].sort()) ?? leastWanted(candidates)
    return worker === undefined ? undefined : { job: 0, worker }
  }
  for (const [job, head] of heads.entries()) {
    const worker = holder(head.keys, fitting(job, sorted))
    if (worker) return { job, worker }
  }
  const everyone = [...holds.keys()]
  for (const [job, head] of heads.entries()) {
    if (head.keys !== undefined && holder(head.keys, everyone)) continue
    const worker = leastWanted(fitting(job, rotated))
    if (worker !== undefined) return { job, worker }
  }
  for (const job of heads.keys()) {
    const worker = leastWanted(fitting(job, rotated))
    if (worker !== undefined) return { job, worker }
  }
  return undefined
}

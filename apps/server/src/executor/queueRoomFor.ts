import type { HeError } from '@sealbox/he-core'
import type { DeficitRoundRobin } from './DeficitRoundRobin.ts'
import type { QueuedJob } from './QueuedJob.ts'

/** The fair scheduler's queue and bounds, as `queueRoomFor` reads them. */
export interface QueueBounds {
  waiting: DeficitRoundRobin<QueuedJob>
  /** Jobs the submitting tenant has waiting. */
  tenantJobs: number
  /** Jobs waiting, all tenants together (QUEUE_SIZE). */
  maxQueued: number
  /** Jobs one tenant — or the anonymous sessions of one address — may have waiting (TENANT_QUEUE_SIZE). */
  maxPerTenant: number
  /** Cost units the queue holds at most (REQUEST_TIMEOUT_MS of every slot at the measured throughput). */
  capacity: number
  /** Estimated milliseconds of one slot for a cost, for the refusals' messages. */
  estimateMs(cost: number): number
  /** The OVERLOADED error of a refusal, with its Retry-After. */
  overloaded(message: string): HeError
}

/**
 * The waiting jobs to push out so `tenant` may queue a job of `cost` in `lane`, or
 * OVERLOADED. Static caps first (TENANT_QUEUE_SIZE per tenant and per address lane),
 * then fair shares: when the queue is full — in jobs (`maxQueued`) or in estimated work
 * (`capacity`) — a lane holding less than its share (the queue ÷ lanes waiting, counting
 * this one) takes the place of the newest jobs of the lanes holding the most; a lane at
 * or above its share is refused. A lane with nothing waiting is never refused for cost:
 * one job of any price may wait. Nothing changes here: the caller pushes out what it gets.
 */
export function queueRoomFor(tenant: string, lane: string, cost: number, queue: QueueBounds): QueuedJob[] {
  const { waiting, maxQueued, maxPerTenant, overloaded } = queue
  if (queue.tenantJobs >= maxPerTenant) {
    throw overloaded(`this tenant already has ${maxPerTenant} jobs waiting (TENANT_QUEUE_SIZE)`)
  }
  // The queue's shares are by party (a tenant, or every anonymous session of one address);
  // the round-robin serves tenants.
  const byLane = new Map<string, QueuedJob[]>()
  for (const entries of waiting.entriesByLane().values()) {
    for (const entry of entries) {
      const held = byLane.get(entry.party)
      if (held) held.push(entry)
      else byLane.set(entry.party, [entry])
    }
  }
  for (const entries of byLane.values()) entries.sort((a, b) => a.enqueuedAt - b.enqueuedAt)
  const ownJobs = byLane.get(lane)?.length ?? 0
  if (lane !== tenant && ownJobs >= maxPerTenant) {
    throw overloaded(
      `the sessions of this client address already have ${maxPerTenant} jobs waiting (TENANT_QUEUE_SIZE, shared by an address's anonymous sessions)`,
    )
  }
  const lanes = byLane.size + (ownJobs === 0 ? 1 : 0)
  const pushed: QueuedJob[] = []
  const pushedFrom = new Map<string, number>()
  /** The newest job of the lane holding the most by `measure` (not `lane`), once it is above `share`. */
  const pushOne = (measure: (entries: readonly QueuedJob[], gone: number) => number, share: number): boolean => {
    let target: string | undefined
    let most = share
    for (const [other, entries] of byLane) {
      if (other === lane) continue
      const held = measure(entries, pushedFrom.get(other) ?? 0)
      if (held > most) {
        most = held
        target = other
      }
    }
    if (target === undefined) return false
    const entries = byLane.get(target) as readonly QueuedJob[]
    const gone = pushedFrom.get(target) ?? 0
    pushed.push(entries[entries.length - 1 - gone] as QueuedJob)
    pushedFrom.set(target, gone + 1)
    return true
  }
  if (waiting.size >= maxQueued) {
    const share = Math.max(1, Math.floor(maxQueued / lanes))
    if (ownJobs >= share || !pushOne((entries, gone) => entries.length - gone, share)) {
      throw overloaded(
        `the job queue is full (${maxQueued} waiting, QUEUE_SIZE) and ${whose(lane, tenant)} ${ownJobs} of them, at least its fair share of ${share} among ${lanes} waiting`,
      )
    }
  }
  const capacity = queue.capacity
  const pushedCost = () => pushed.reduce((sum, entry) => sum + entry.cost, 0)
  if (ownJobs > 0 && waiting.cost - pushedCost() + cost > capacity) {
    const share = capacity / lanes
    const ownCost = (byLane.get(lane) ?? []).reduce((sum, entry) => sum + entry.cost, 0)
    const costOf = (entries: readonly QueuedJob[], gone: number) =>
      entries.slice(0, entries.length - gone).reduce((sum, entry) => sum + entry.cost, 0)
    const refuse = () =>
      overloaded(
        `the queued work is at its bound (REQUEST_TIMEOUT_MS of every worker, about ${Math.round(queue.estimateMs(capacity) / 1000)} s) and ${whose(lane, tenant)} about ${Math.ceil(queue.estimateMs(ownCost))} ms of it, its fair share among ${lanes} waiting`,
      )
    if (ownCost + cost > share) throw refuse()
    while (waiting.cost - pushedCost() + cost > capacity) {
      if (!pushOne(costOf, share)) throw refuse()
    }
  }
  return pushed
}

/** Who holds a lane's waiting jobs, for a refusal's message. */
function whose(lane: string, tenant: string): string {
  return lane === tenant ? 'this tenant holds' : "this client address's sessions hold"
}

/** What the round-robin needs to know of a waiting job. */
export interface CostedEntry {
  tenant: string
  /** Estimated work in cost units. */
  cost: number
}

/** A tenant with waiting jobs: its FIFO and its deficit (cost units it may still start this round). */
interface TenantQueue<T> {
  entries: T[]
  deficit: number
}

/**
 * One FIFO per tenant, served by deficit round-robin (DRR) in cost: each round adds a
 * quantum to every waiting tenant's deficit, and a tenant's head job may start once
 * its deficit covers the job's cost. Rounds in which nobody could start are skipped in
 * one step, so finding the next jobs is O(tenants) whatever the costs.
 */
export class DeficitRoundRobin<T extends CostedEntry> {
  readonly #queues = new Map<string, TenantQueue<T>>()
  /** Tenants with waiting jobs, in service order. */
  readonly #ring: string[] = []
  readonly #quantum: number
  #size = 0
  #cost = 0

  /** `quantum`: cost units a deficit grows by per round; smaller ones interleave tenants finer. */
  constructor(quantum: number) {
    this.#quantum = quantum
  }

  /** Jobs waiting, all tenants together. */
  get size(): number {
    return this.#size
  }

  /** Cost units waiting, all tenants together. */
  get cost(): number {
    return this.#cost
  }

  /** Jobs `tenant` has waiting. */
  sizeOf(tenant: string): number {
    return this.#queues.get(tenant)?.entries.length ?? 0
  }

  /** Waiting jobs per tenant. */
  sizeByTenant(): Map<string, number> {
    return new Map([...this.#queues].map(([tenant, queue]) => [tenant, queue.entries.length]))
  }

  /** Appends `entry` to its tenant's FIFO (a new tenant joins the ring at the back). */
  push(entry: T): void {
    let queue = this.#queues.get(entry.tenant)
    if (!queue) {
      queue = { entries: [], deficit: 0 }
      this.#queues.set(entry.tenant, queue)
      this.#ring.push(entry.tenant)
    }
    queue.entries.push(entry)
    this.#size++
    this.#cost += entry.cost
  }

  /**
   * The head jobs that may start now (their tenant's deficit covers their cost), in
   * ring order, at most `limit` of them. When none may, the rounds it takes until
   * one can are granted to every waiting tenant at once — as if DRR had gone round
   * that many times without starting anything. Empty only when nothing waits.
   */
  eligibleHeads(limit: number): T[] {
    if (this.#size === 0) return []
    const eligible = () => {
      const heads: T[] = []
      for (const tenant of this.#ring) {
        const queue = this.#queues.get(tenant) as TenantQueue<T>
        const head = queue.entries[0] as T
        if (queue.deficit >= head.cost) heads.push(head)
        if (heads.length === limit) break
      }
      return heads
    }
    const heads = eligible()
    if (heads.length > 0) return heads
    let rounds = Number.POSITIVE_INFINITY
    for (const queue of this.#queues.values()) {
      const head = queue.entries[0] as T
      rounds = Math.min(rounds, Math.ceil((head.cost - queue.deficit) / this.#quantum))
    }
    for (const queue of this.#queues.values()) queue.deficit += Math.max(1, rounds) * this.#quantum
    return eligible()
  }

  /**
   * Removes a tenant's head entry (one of `eligibleHeads`) and charges its deficit. A
   * tenant whose queue is now empty leaves the ring and forgets its deficit (DRR: no
   * credit for idle time); one whose next job its deficit cannot cover ends its turn
   * at the back of the ring.
   */
  take(entry: T): void {
    const queue = this.#queues.get(entry.tenant) as TenantQueue<T>
    queue.entries.shift()
    queue.deficit -= entry.cost
    this.#size--
    this.#cost -= entry.cost
    const next = queue.entries[0]
    if (!next) {
      this.#queues.delete(entry.tenant)
      this.#ring.splice(this.#ring.indexOf(entry.tenant), 1)
    } else if (queue.deficit < next.cost) {
      this.#ring.splice(this.#ring.indexOf(entry.tenant), 1)
      this.#ring.push(entry.tenant)
    }
  }

  /** Removes a waiting entry wherever it is (a deadline or a client abort); false if it was not waiting. */
  remove(entry: T): boolean {
    const queue = this.#queues.get(entry.tenant)
    const index = queue?.entries.indexOf(entry) ?? -1
    if (!queue || index === -1) return false
    queue.entries.splice(index, 1)
    this.#size--
    this.#cost -= entry.cost
    if (queue.entries.length === 0) {
      this.#queues.delete(entry.tenant)
      const at = this.#ring.indexOf(entry.tenant)
      if (at !== -1) this.#ring.splice(at, 1)
    }
    return true
  }
}

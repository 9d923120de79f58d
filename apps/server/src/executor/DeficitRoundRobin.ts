/** What the round-robin needs to know of a waiting job. */
export interface CostedEntry {
  /** The FIFO it waits in (the scheduler's: its tenant). */
  lane: string
  /** Estimated work in cost units. */
  cost: number
}

/** A lane with waiting jobs: its FIFO, their cost, and its deficit (cost units it may still start this round). */
interface LaneQueue<T> {
  entries: T[]
  cost: number
  deficit: number
}

/**
 * One FIFO per lane (the scheduler keeps one per tenant), served
 * by deficit round-robin (DRR) in cost: each round adds a quantum to every waiting lane's
 * deficit, and a lane's head job may start once its deficit covers the job's cost. Rounds
 * in which nobody could start are skipped in one step, so finding the next jobs is
 * O(lanes) whatever the costs.
 */
export class DeficitRoundRobin<T extends CostedEntry> {
  readonly #queues = new Map<string, LaneQueue<T>>()
  /** Lanes with waiting jobs, in service order. */
  readonly #ring: string[] = []
  readonly #quantum: number
  #size = 0
  #cost = 0

  /** `quantum`: cost units a deficit grows by per round; smaller ones interleave lanes finer. */
  constructor(quantum: number) {
    this.#quantum = quantum
  }

  /** Jobs waiting, all lanes together. */
  get size(): number {
    return this.#size
  }

  /** Cost units waiting, all lanes together. */
  get cost(): number {
    return this.#cost
  }

  /** Jobs `lane` has waiting. */
  sizeOf(lane: string): number {
    return this.#queues.get(lane)?.entries.length ?? 0
  }

  /** Cost units `lane` has waiting. */
  costOf(lane: string): number {
    return this.#queues.get(lane)?.cost ?? 0
  }

  /** Lanes with waiting jobs. */
  get lanes(): number {
    return this.#queues.size
  }

  /** The waiting jobs of each lane, oldest first (a snapshot: for choosing what to push out). */
  entriesByLane(): Map<string, readonly T[]> {
    return new Map([...this.#queues].map(([lane, queue]) => [lane, [...queue.entries]]))
  }

  /** Appends `entry` to its lane's FIFO (a new lane joins the ring at the back). */
  push(entry: T): void {
    let queue = this.#queues.get(entry.lane)
    if (!queue) {
      queue = { entries: [], cost: 0, deficit: 0 }
      this.#queues.set(entry.lane, queue)
      this.#ring.push(entry.lane)
    }
    queue.entries.push(entry)
    queue.cost += entry.cost
    this.#size++
    this.#cost += entry.cost
  }

  /**
   * The head jobs that may start now (their lane's deficit covers their cost), in
   * ring order, at most `limit` of them. When none may, the rounds it takes until
   * one can are granted to every waiting lane at once — as if DRR had gone round
   * that many times without starting anything. Empty only when nothing waits.
   */
  eligibleHeads(limit: number): T[] {
    if (this.#size === 0) return []
    const eligible = () => {
      const heads: T[] = []
      for (const lane of this.#ring) {
        const queue = this.#queues.get(lane) as LaneQueue<T>
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
   * Removes a lane's head entry (one of `eligibleHeads`) and charges its deficit. A
   * lane whose queue is now empty leaves the ring and forgets its deficit (DRR: no
   * credit for idle time); one whose next job its deficit cannot cover ends its turn
   * at the back of the ring.
   */
  take(entry: T): void {
    const queue = this.#queues.get(entry.lane) as LaneQueue<T>
    queue.entries.shift()
    queue.cost -= entry.cost
    queue.deficit -= entry.cost
    this.#size--
    this.#cost -= entry.cost
    const next = queue.entries[0]
    if (!next) {
      this.#queues.delete(entry.lane)
      this.#ring.splice(this.#ring.indexOf(entry.lane), 1)
    } else if (queue.deficit < next.cost) {
      this.#ring.splice(this.#ring.indexOf(entry.lane), 1)
      this.#ring.push(entry.lane)
    }
  }

  /** Removes a waiting entry wherever it is (a deadline or a client abort); false if it was not waiting. */
  remove(entry: T): boolean {
    const queue = this.#queues.get(entry.lane)
    const index = queue?.entries.indexOf(entry) ?? -1
    if (!queue || index === -1) return false
    queue.entries.splice(index, 1)
    queue.cost -= entry.cost
    this.#size--
    this.#cost -= entry.cost
    if (queue.entries.length === 0) {
      this.#queues.delete(entry.lane)
      const at = this.#ring.indexOf(entry.lane)
      if (at !== -1) this.#ring.splice(at, 1)
    }
    return true
  }
}

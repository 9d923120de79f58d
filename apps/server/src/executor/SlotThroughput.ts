import { COST_UNIT_MS } from '@sealbox/he-core'

/**
 * The measured throughput of one executor slot: cost units finished and the slot
 * milliseconds they took, both decayed per job. Their ratio is weighted by time, so a
 * mis-estimated tiny job cannot swing it. The prior is the model's COST_UNIT_MS per unit.
 */
export class SlotThroughput {
  #doneCost = 20
  #doneMs = 20 * COST_UNIT_MS

  /** Cost units one slot works off per millisecond. */
  get perMs(): number {
    return this.#doneCost / this.#doneMs
  }

  /** Cost units one slot works off per second. */
  get unitsPerSecond(): number {
    return this.perMs * 1000
  }

  /** Estimated milliseconds of one slot for `cost` units. */
  estimateMs(cost: number): number {
    return cost / this.perMs
  }

  /** A job of `cost` units finished in `elapsedMs` of its slot. */
  learn(cost: number, elapsedMs: number): void {
    this.#doneCost = 0.8 * this.#doneCost + cost
    this.#doneMs = 0.8 * this.#doneMs + Math.max(0.01, elapsedMs)
  }
}

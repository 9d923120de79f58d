import { Counter, Gauge, Histogram, type Registry } from 'prom-client'
import type { KeyStoreObserver } from '../store/OutageTolerantKeyStore.ts'

const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15]

/**
 * The key store's health and latency in `/metrics`: `sealbox_key_store_up` (1 reachable,
 * 0 degraded), `sealbox_key_store_call_seconds{op,result}` for every call from the main
 * thread, and `sealbox_key_store_stale_serves_total` (requests answered from a key-set
 * record confirmed before an outage).
 */
export class KeyStoreMetrics implements KeyStoreObserver {
  readonly #up: Gauge
  readonly #calls: Histogram<'op' | 'result'>
  readonly #stale: Counter

  constructor(registry: Registry) {
    this.#up = new Gauge({
      name: 'sealbox_key_store_up',
      help: 'Whether the key store answered the last call (1) or is unreachable (0: degraded, recent key sets served from memory)',
      registers: [registry],
    })
    this.#calls = new Histogram({
      name: 'sealbox_key_store_call_seconds',
      help: 'Key-store calls from the main thread, by operation and result (ok, unavailable, error)',
      labelNames: ['op', 'result'],
      buckets: STORE_BUCKETS,
      registers: [registry],
    })
    this.#stale = new Counter({
      name: 'sealbox_key_store_stale_serves_total',
      help: 'Requests that used a key-set record confirmed before the store became unreachable (within KEY_STORE_STALE_MS)',
      registers: [registry],
    })
  }

  call(op: string, result: 'ok' | 'unavailable' | 'error', seconds: number): void {
    this.#calls.observe({ op, result }, seconds)
  }

  health(up: boolean): void {
    this.#up.set(up ? 1 : 0)
  }

  staleServe(): void {
    this.#stale.inc()
  }
}

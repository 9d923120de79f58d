/**
 * Settings of every server variant besides EXECUTOR and WORKERS. Load shedding is off
 * (`MAX_EVENT_LOOP_DELAY_MS=0`) so an overloaded `inline` loop shows its latency
 * instead of answering 503; the queues are deep enough for the highest concurrency, and
 * the one bench tenant's cost budget does not limit the throughput being measured.
 */
export const BENCH_SERVER_ENV: Readonly<Record<string, string>> = {
  MODE: 'local',
  LOG_LEVEL: 'warn',
  MAX_EVENT_LOOP_DELAY_MS: '0',
  QUEUE_SIZE: '1024',
  TENANT_QUEUE_SIZE: '1024',
  TENANT_COST_BUDGET: String(1e12),
  REQUEST_TIMEOUT_MS: '120000',
  ALLOW_EXECUTOR_OVERRIDE: 'false',
  FAULT_INJECTION: 'false',
  // The inline row is the comparison: it must run every workload (the heavy program and its
  // key upload included), which the server's default inline cap refuses by design.
  MAX_INLINE_COST: String(1e9),
}

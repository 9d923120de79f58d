import { defineProject } from 'vitest/config'

/**
 * The server files that run alone after every parallel file (root vitest.config.ts):
 * eventLoop.e2e asserts one ordering of `/healthz` latencies (pool near idle, inline far
 * from it) that a neighbour's burst between its windows could blur; the inline executor's
 * abuse files and PostgresKeyStore's deadlines measure the machine too, and three abuse files
 * whose baseline and attack windows a neighbour's burst can split (below). Every other file,
 * the abuse suite included, judges its timings against baselines from the same test and
 * runs in the parallel group; so does deployDoc, whose `npm run build` writes dist/ in a
 * copy of the checkout (scripts/copyCheckout.mjs), never in the dist/ folders other files
 * serve (the web sandbox's build) or read.
 */
export const SERIAL_SERVER_FILES: readonly string[] = [
  // The inline executor computes on the event loop by design; under-pressure answers 503 when
  // the loop lags, and a busy neighbour's lag is indistinguishable from the job's own.
  'test/abuse/inlineFlood.e2e.test.ts',
  'test/abuse/inlineExecutor.e2e.test.ts',
  // /healthz p99 within 500 ms of what an idle process's probe costs on the same host: a
  // neighbour's burst lands on the server's threads, not on the idle control's.
  'test/abuse/bigKeysWithQueueFlood.e2e.test.ts',
  // Lock, statement and acquire timeouts answered within their bound plus a slack, against a
  // PostgreSQL of its own whose connections a busy neighbour slows.
  'src/store/PostgresKeyStore.test.ts',
  // /healthz near its idle latency while the pool computes, far from it inline: a neighbour
  // file's burst between the idle and the loaded window would blur the one ordering it asserts.
  'test/eventLoop.e2e.test.ts',
  // A victim's latency during the attack against its baseline from before it (grownInput:
  // max < 8 × p50; queueShare: /healthz p99), and Retry-After against a drain timed in the
  // same test: a neighbour's burst in one window and not the other fails them (all three in
  // one fresh-clone run beside deployDoc's build, passing in the two runs before it).
  'test/abuse/grownInput.e2e.test.ts',
  'test/abuse/queueShare.e2e.test.ts',
  'test/abuse/retryAfterDrain.e2e.test.ts',
]

export default defineProject({
  resolve: { conditions: ['@sealbox/source'] },
  ssr: { resolve: { conditions: ['@sealbox/source'] } },
  test: {
    name: 'server-serial',
    include: [...SERIAL_SERVER_FILES],
    environment: 'node',
    // After the parallel group, one file at a time (root vitest.config.ts).
    sequence: { groupOrder: 1 },
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
})

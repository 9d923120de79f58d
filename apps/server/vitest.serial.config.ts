import { defineProject } from 'vitest/config'

/**
 * The server files whose subject is the machine itself, run alone after every parallel file
 * (root vitest.config.ts): each holds `/healthz` latency, CPU time or a database deadline
 * to a bound measured against a baseline taken a moment earlier in the same test, so a
 * neighbour file starting a browser or a SEAL key generation between the two would move
 * the bound, not the server. deployDoc runs the doc's `npm run build` in this checkout,
 * rewriting the dist/ folders other files serve or pack, so it too runs with nothing beside it.
 */
export const SERIAL_SERVER_FILES: readonly string[] = [
  // /healthz near its idle latency while the pool computes, far from it inline: a neighbour
  // file's burst between the idle and the loaded window would blur the one ordering it asserts.
  'test/eventLoop.e2e.test.ts',
  // `npm run build` in this checkout: he-ring, he-core, server and web dist/.
  'test/deploy/deployDoc.test.ts',
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

import { defineProject } from 'vitest/config'

export default defineProject({
  resolve: { conditions: ['@sealbox/source'] },
  ssr: { resolve: { conditions: ['@sealbox/source'] } },
  test: {
    name: 'server',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    // Projects run one after another (root vitest.config.ts): heavy suites do not share 2 cores.
    sequence: { groupOrder: 2 },
    // Real servers, real worker threads and child processes, real SEAL: suites start
    // several servers each, and files run one at a time so they do not fight over 2 cores.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
})

import { defineProject } from 'vitest/config'

export default defineProject({
  resolve: { conditions: ['@sealbox/source'] },
  ssr: { resolve: { conditions: ['@sealbox/source'] } },
  test: {
    name: 'bench',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    // Projects run one after another (root vitest.config.ts): heavy suites do not share 2 cores.
    sequence: { groupOrder: 1 },
    // Real SEAL at n=4096, and one end-to-end `--quick` run through Node and Chromium.
    testTimeout: 90_000,
    hookTimeout: 90_000,
  },
})

import { defineProject } from 'vitest/config'

export default defineProject({
  resolve: { conditions: ['@sealbox/source'] },
  ssr: { resolve: { conditions: ['@sealbox/source'] } },
  test: {
    name: 'he-core',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    // Projects run one after another (root vitest.config.ts): heavy suites do not share 2 cores.
    sequence: { groupOrder: 0 },
    // Real SEAL at small parameters; a few suites build n=8192 contexts.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})

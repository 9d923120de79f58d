import { defineProject } from 'vitest/config'

export default defineProject({
  resolve: { conditions: ['@sealbox/source'] },
  ssr: { resolve: { conditions: ['@sealbox/source'] } },
  test: {
    name: 'he-core',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    // The parallel group (root vitest.config.ts).
    sequence: { groupOrder: 0 },
    // Real SEAL at small parameters; a few suites build n=8192 contexts, beside other files
    // on 2 busy cores.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
})

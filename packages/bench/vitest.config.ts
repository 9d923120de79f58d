import { defineProject } from 'vitest/config'

export default defineProject({
  resolve: { conditions: ['@sealbox/source'] },
  ssr: { resolve: { conditions: ['@sealbox/source'] } },
  test: {
    name: 'bench',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    // The parallel group (root vitest.config.ts).
    sequence: { groupOrder: 0 },
    // Real SEAL at n=4096, and one end-to-end `--quick` run through Node and Chromium, beside
    // other files on 2 busy cores.
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
})

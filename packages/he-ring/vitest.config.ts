import { defineProject } from 'vitest/config'

export default defineProject({
  resolve: { conditions: ['@sealbox/source'] },
  ssr: { resolve: { conditions: ['@sealbox/source'] } },
  test: {
    name: 'he-ring',
    include: ['src/**/*.test.ts'],
    environment: 'node',
    // Runs with he-core's group (root vitest.config.ts): BigInt oracles at n = 16, no SEAL, seconds.
    sequence: { groupOrder: 0 },
  },
})

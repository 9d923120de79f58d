import { defineProject } from 'vitest/config'

export default defineProject({
  resolve: { conditions: ['@sealbox/source'] },
  ssr: { resolve: { conditions: ['@sealbox/source'] } },
  test: {
    name: 'testkit',
    include: ['src/**/*.test.ts'],
    environment: 'node',
    // With he-core's group (root vitest.config.ts): loopback sockets and timers, no SEAL, no servers.
    sequence: { groupOrder: 0 },
  },
})

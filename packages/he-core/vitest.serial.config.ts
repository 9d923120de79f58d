import { defineProject } from 'vitest/config'

/**
 * he-core files that must not run beside others (root vitest.config.ts): package.e2e packs
 * he-ring and he-core, and `pnpm pack` empties and rebuilds their dist/ in this checkout,
 * which the server's deployDoc (its own serial file) builds and runs from.
 */
export const SERIAL_CORE_FILES: readonly string[] = ['test/package.e2e.test.ts']

export default defineProject({
  resolve: { conditions: ['@sealbox/source'] },
  ssr: { resolve: { conditions: ['@sealbox/source'] } },
  test: {
    name: 'he-core-serial',
    include: [...SERIAL_CORE_FILES],
    environment: 'node',
    // After the parallel group, one file at a time, with server-serial.
    sequence: { groupOrder: 1 },
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
})

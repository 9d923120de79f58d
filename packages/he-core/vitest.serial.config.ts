import { defineProject } from 'vitest/config'

/**
 * he-core files that run alone after the server's serial files (root vitest.config.ts):
 * KernelGaloisKeys.test counts the process's ArrayBuffer bytes exactly, and under a busy
 * neighbour the test runner's own buffers in the window came to 39 % of what it counts in
 * every one of its three windows (one fresh-clone run; the two before it passed).
 */
export const SERIAL_CORE_FILES: readonly string[] = ['src/search/KernelGaloisKeys.test.ts']

export default defineProject({
  resolve: { conditions: ['@sealbox/source'] },
  ssr: { resolve: { conditions: ['@sealbox/source'] } },
  test: {
    name: 'he-core-serial',
    include: [...SERIAL_CORE_FILES],
    environment: 'node',
    // After server-serial (groupOrder 1): projects of one groupOrder run side by side.
    sequence: { groupOrder: 2 },
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
})

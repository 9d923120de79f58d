import { defineProject } from 'vitest/config'

export default defineProject({
  resolve: { conditions: ['@sealbox/source'] },
  ssr: { resolve: { conditions: ['@sealbox/source'] } },
  test: {
    name: 'bench',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    // One module graph per worker, not per file: a file's import of he-core, zod and the bench
    // code is most of what a short bench file costs (~0.8 CPU-s each). Bench files keep no state
    // between them that another reads: each compares SEAL handle counts within its own test, and
    // the end-to-end files run the CLI in child processes.
    isolate: false,
    // The parallel group (root vitest.config.ts).
    sequence: { groupOrder: 0 },
    // Real SEAL at n=4096, and one end-to-end `--quick` run through Node and Chromium, beside
    // other files on 2 busy cores.
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
})

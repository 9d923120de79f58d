import { defineConfig } from 'vitest/config'
import { LongestFirstSequencer } from './scripts/LongestFirstSequencer.mjs'

/**
 * How many test files run at once in the parallel group. The machine this suite is sized
 * for has 2 cores, and CI adds one busy process per core: a test file gets a share of the
 * CPU by having runnable threads, and most server and browser files wait on processes,
 * servers and browsers more than they compute. Under CI's load, 6 at a time ran the suite
 * in 19 min where one at a time took 35 (`npm test`, typecheck and lint included).
 */
const PARALLEL_FILES = 6

/**
 * One config for every package: each package's own vitest.config.ts is a project. Two groups
 * (`sequence.groupOrder`), one after the other:
 *
 * 0. parallel, PARALLEL_FILES files at a time across every project (scripts, he-ring, testkit,
 *    he-core, bench, server, web), the longest first (scripts/LongestFirstSequencer.mjs, from
 *    scripts/testDurations.json). A file here starts its own servers on ports from freePort,
 *    writes to its own temp dirs, waits on events it controls and compares any timing with a
 *    baseline from the same test; the web files share one served sandbox (apps/web globalSetup,
 *    which builds apps/web/dist). A file that builds or packs (deployDoc's `npm run build`,
 *    package.e2e's `pnpm pack`, which empties dist/ first) does it in a copy of the checkout
 *    (scripts/copyCheckout.mjs), so no dist/ another file reads changes under it.
 * 1. serial, one file at a time with nothing beside it: `server-serial`
 *    (apps/server/vitest.serial.config.ts: eventLoop.e2e, the inline executor's two abuse files,
 *    bigKeysWithQueueFlood, PostgresKeyStore, grownInput, queueShare and retryAfterDrain, which
 *    hold latencies or deadlines to bounds a busy neighbour moves).
 * 2. then `he-core-serial` (packages/he-core/vitest.serial.config.ts: KernelGaloisKeys, which
 *    counts the process's ArrayBuffer bytes exactly).
 */
export default defineConfig({
  test: {
    projects: [
      'scripts/vitest.config.mjs',
      'packages/*/vitest.config.ts',
      'apps/*/vitest.config.ts',
      'apps/server/vitest.serial.config.ts',
      'packages/he-core/vitest.serial.config.ts',
    ],
    maxWorkers: PARALLEL_FILES,
    // The longest files first, across projects (scripts/testDurations.json).
    sequence: { sequencer: LongestFirstSequencer },
  },
})

import { defineConfig } from 'vitest/config'

/**
 * One config for every package: each package's own vitest.config.ts is a project.
 * Projects run in `sequence.groupOrder` (scripts, he-ring and he-core, bench, server, web), one
 * group at a time: the server and browser suites start real servers, workers and browsers and
 * must not fight the SEAL unit tests for the machine's 2 cores.
 */
export default defineConfig({
  test: {
    projects: ['scripts/vitest.config.mjs', 'packages/*/vitest.config.ts', 'apps/*/vitest.config.ts'],
  },
})

import { defineConfig } from 'vitest/config'

/** One config for every package: each package's own vitest.config.ts is a project. */
export default defineConfig({
  test: {
    projects: ['packages/*/vitest.config.ts', 'apps/*/vitest.config.ts'],
  },
})

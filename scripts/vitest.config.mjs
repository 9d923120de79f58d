import { defineProject } from 'vitest/config'

// The repo's own tooling (plain Node scripts): quick, so it runs first.
export default defineProject({
  test: {
    name: 'scripts',
    include: ['*.test.mjs'],
    environment: 'node',
    sequence: { groupOrder: 0 },
  },
})

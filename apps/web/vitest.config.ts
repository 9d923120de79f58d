import { defineProject } from 'vitest/config'

/**
 * The sandbox's tests: end-to-end, the real built app in real browsers (Chromium,
 * Firefox, WebKitGTK) served by the real server; and unit tests of the pure modules
 * (the .test.ts files under src: the workspace as data, no SEAL, no DOM) in Node.
 */
export default defineProject({
  resolve: { conditions: ['@sealbox/source'] },
  ssr: { resolve: { conditions: ['@sealbox/source'] } },
  // Global setup (the served sandbox, a ServerNode) is loaded in vitest's own environment.
  environments: {
    __vitest__: { resolve: { conditions: ['@sealbox/source'], externalConditions: ['@sealbox/source'] } },
  },
  test: {
    name: 'web',
    include: ['e2e/**/*.e2e.test.ts', 'src/**/*.test.ts'],
    environment: 'node',
    // The parallel group (root vitest.config.ts): each file opens its own browser contexts
    // (Chromium: in the project's one browser) against the one served sandbox.
    sequence: { groupOrder: 0 },
    globalSetup: ['e2e/globalSetup.ts'],
    // A worker runs file after file without re-importing vitest, Playwright and the
    // testkit for each: no file here changes a global or stubs a module, and every
    // browser, page and workspace is a fixture of its own file or test. Measured on the
    // 20 unit files: 17.0 / 18.2 CPU-s isolated, 13.5 / 12.6 not (Chromium e2e files,
    // which import more, save more each).
    isolate: false,
    // Browsers and SEAL key generation beside other files on 2 busy cores: generous limits.
    testTimeout: 180_000,
    // expect.poll waits for what the page shows next (an upload finished, a run listed);
    // vitest's 1 s default is a machine-speed bet, so the deadline is generous here.
    expect: { poll: { timeout: 30_000 } },
    hookTimeout: 180_000,
  },
})

import { chromiumLaunchOptions, ServerNode } from '@sealbox/testkit'
import { chromium } from 'playwright-core'
import type { TestProject } from 'vitest/node'
import { buildApp, DIST_DIR } from './support/buildApp.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    /** Origin serving the freshly built sandbox. */
    sandboxUrl: string
    /** Where the project's one Chromium listens for Playwright clients (e2e/support/sandboxTest.ts). */
    chromiumWsEndpoint: string
  }
}

/**
 * Builds the sandbox once and serves it with the real server (as `npm start` runs it)
 * for every e2e file: executor overrides on, so the sandbox can compare pool and
 * inline; a smaller demo database keeps the warm-up short (the search is the same).
 * Inline admission (a job the inline executor measured above INLINE_MAX_JOB_MS is
 * refused) is the server's own test; here a loaded machine must not turn the sandbox's
 * pool-versus-inline comparison into a refusal, so the bound is the largest allowed.
 *
 * It also launches the one Chromium every Chromium file connects to: a launch cost about
 * a CPU-second per file, a new context (what each test gets) a few milliseconds, and a
 * context shares no storage, cache or process with another, so a test sees the same
 * fresh browser either way.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await buildApp()
  const server = await ServerNode.start({
    name: 'web-e2e',
    webDist: DIST_DIR,
    env: {
      MODE: 'local',
      WORKERS: '1',
      ALLOW_EXECUTOR_OVERRIDE: 'true',
      SYNTHETIC_ROWS: '2000',
      SYNTHETIC_DIM: '16',
      SYNTHETIC_SEED: '1',
      INLINE_MAX_JOB_MS: '60000',
      INLINE_BUDGET_MS: '3600000',
    },
  })
  project.provide('sandboxUrl', server.url)
  const chromiumServer = await chromium.launchServer(chromiumLaunchOptions()).catch(async (error: unknown) => {
    await server.stop()
    throw error
  })
  project.provide('chromiumWsEndpoint', chromiumServer.wsEndpoint())
  return async () => {
    await chromiumServer.close()
    await server.stop()
  }
}

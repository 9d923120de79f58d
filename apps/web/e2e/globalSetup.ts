import { ServerNode } from '@sealbox/testkit'
import type { TestProject } from 'vitest/node'
import { buildApp, DIST_DIR } from './support/buildApp.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    /** Origin serving the freshly built sandbox. */
    sandboxUrl: string
  }
}

/**
 * Builds the sandbox once and serves it with the real server (as `npm start` runs it)
 * for every e2e file: executor overrides on, so the sandbox can compare pool and
 * inline; a smaller demo database keeps the warm-up short (the search is the same).
 * Inline admission (a job the inline executor measured above INLINE_MAX_JOB_MS is
 * refused) is the server's own test; here a loaded machine must not turn the sandbox's
 * pool-versus-inline comparison into a refusal, so the bound is the largest allowed.
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
  return async () => {
    await server.stop()
  }
}

import type { TestProject } from 'vitest/node'
import { buildApp } from './support/buildApp.ts'
import { startSandboxServer } from './support/startSandboxServer.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    /** Origin serving the freshly built sandbox. */
    sandboxUrl: string
    /** 'sealbox' when the real server serves it (server features testable), else 'static'. */
    serverKind: 'static' | 'sealbox'
  }
}

/** Builds the sandbox once and serves it for every e2e file. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await buildApp()
  const server = await startSandboxServer()
  project.provide('sandboxUrl', server.url)
  project.provide('serverKind', server.kind)
  return () => server.close()
}

import type { TestProject } from 'vitest/node'
import { buildApp } from './support/buildApp.ts'
import { startSandboxServer } from './support/startSandboxServer.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    /** Origin serving the freshly built sandbox. */
    sandboxUrl: string
  }
}

/** Builds the sandbox once and serves it with the real server for every e2e file. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await buildApp()
  const server = await startSandboxServer()
  project.provide('sandboxUrl', server.url)
  return () => server.close()
}

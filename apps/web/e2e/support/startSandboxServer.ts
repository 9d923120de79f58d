import { DIST_DIR } from './buildApp.ts'
import { type RunningServer, startStaticServer } from './staticServer.ts'

/**
 * Starts what serves the built sandbox for the e2e run. Until apps/server can be
 * started from a test, a static server with the same headers stands in.
 */
export async function startSandboxServer(): Promise<RunningServer & { kind: 'static' | 'sealbox' }> {
  const server = await startStaticServer(DIST_DIR)
  return { ...server, kind: 'static' }
}

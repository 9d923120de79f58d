import { BenchError } from '../../BenchError.ts'
import type { EngineSession, EngineStartContext } from '../BenchEngine.ts'
import { HarnessConnection } from '../HarnessConnection.ts'
import type { BenchPageHost } from './BenchPageHost.ts'

/** A launched browser showing one page. */
export interface BrowserSession {
  /** Browser build as the driver reports it. */
  version(): Promise<string>
  close(): Promise<void>
}

/** Launches a browser and navigates it to `url`; `onCrash` reports a browser that went away. */
export type LaunchBrowser = (url: string, onCrash: (reason: string) => void) => Promise<BrowserSession>

/**
 * The part every browser column shares: register the run with the page server, open
 * the page, and relay commands (long-polled by the page) and events (posted by it).
 */
export async function startInBrowser(
  engine: string,
  host: BenchPageHost,
  context: EngineStartContext,
  launch: LaunchBrowser,
): Promise<EngineSession> {
  const server = await host.server()
  let connection: HarnessConnection | undefined
  const page = server.open(context.plan, (raw) => connection?.accept(raw))
  connection = new HarnessConnection(engine, context.onEvent, (command) => page.send(command))
  const live = connection
  let browser: BrowserSession
  try {
    browser = await launch(page.url, (reason) => live.fail(new BenchError('ENGINE_FAILED', `${engine}: ${reason}`)))
  } catch (error) {
    page.close()
    throw error
  }
  return {
    request: (command, timeoutMs) => live.request(command, timeoutMs),
    get result() {
      return live.result
    },
    versions: async () => ({ browser: await browser.version() }),
    close: async () => {
      live.fail(new BenchError('ENGINE_FAILED', `${engine}: closed`))
      page.close()
      await browser.close().catch(() => undefined)
    },
  }
}

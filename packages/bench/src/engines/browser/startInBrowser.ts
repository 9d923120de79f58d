import { BenchError } from '../../BenchError.ts'
import type { EngineRunContext, EngineRunOutcome } from '../BenchEngine.ts'
import { HarnessEventCollector } from '../HarnessEventCollector.ts'
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
 * the page, relay its events, and close the browser whatever happens.
 */
export async function runInBrowser(
  engine: string,
  host: BenchPageHost,
  context: EngineRunContext,
  launch: LaunchBrowser,
): Promise<EngineRunOutcome> {
  const server = await host.server()
  const collector = new HarnessEventCollector(engine, context.onEvent)
  const page = server.open(context.plan, (raw) => collector.accept(raw))
  const timer = setTimeout(
    () =>
      collector.fail(new BenchError('TIMEOUT', `${engine}: no result after ${Math.round(context.timeoutMs / 1000)} s`)),
    context.timeoutMs,
  )
  let session: BrowserSession | undefined
  try {
    session = await launch(page.url, (reason) =>
      collector.fail(new BenchError('ENGINE_FAILED', `${engine}: ${reason}`)),
    )
    const result = await collector.done
    return { result, versions: { browser: await session.version() } }
  } finally {
    clearTimeout(timer)
    page.close()
    await session?.close().catch(() => undefined)
  }
}

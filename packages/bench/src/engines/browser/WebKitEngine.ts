import { existsSync } from 'node:fs'
import { debianToolPath, startWebKitDriver } from '@sealbox/testkit'
import type { BenchEngine, EngineAvailability, EngineSession, EngineStartContext } from '../BenchEngine.ts'
import type { BenchPageHost } from './BenchPageHost.ts'
import { startInBrowser } from './startInBrowser.ts'

const DRIVER = debianToolPath('webkit_driver')
const XVFB_RUN = debianToolPath('xvfb_run')
const XAUTH = debianToolPath('xauth')

/**
 * The WebKit column: WebKitGTK's MiniBrowser through `WebKitWebDriver` and
 * selenium-webdriver. WebKitGTK has no headless switch, so the driver runs under
 * `xvfb-run -a`. Labelled WebKit (WebKitGTK), not Safari: same engine family, not Apple's build.
 */
export class WebKitEngine implements BenchEngine {
  readonly id = 'webkit'
  readonly label = 'WebKit (WebKitGTK)'
  readonly shortName = 'WebKit'
  readonly color = '#8e44ad'
  readonly #host: BenchPageHost

  constructor(host: BenchPageHost) {
    this.#host = host
  }

  async detect(): Promise<EngineAvailability> {
    const missing = [DRIVER, XVFB_RUN, XAUTH].filter((path) => !existsSync(path))
    if (missing.length === 0) return { available: true }
    return {
      available: false,
      reason: `${missing.join(', ')} not found`,
      install: 'sudo apt-get install -y webkit2gtk-driver xvfb xauth (or rerun with --install-browsers)',
    }
  }

  start(context: EngineStartContext): Promise<EngineSession> {
    return startInBrowser('webkit', this.#host, context, async (url, onCrash) => {
      const driver = await startWebKitDriver({
        minibrowserArgs: ['--enable-write-console-messages-to-stdout=false'],
        readyTimeoutMs: 20_000,
      })
      const stopDriver = () => driver.stop()
      try {
        const webdriver = await driver.newSession()
        driver.process.once('exit', () => onCrash('WebKitWebDriver exited'))
        await webdriver.get(url)
        return {
          version: async () => String((await webdriver.getCapabilities()).get('browserVersion') ?? 'unknown'),
          close: async () => {
            await webdriver.quit().catch(() => undefined)
            stopDriver()
          },
        }
      } catch (error) {
        stopDriver()
        throw error
      }
    })
  }
}

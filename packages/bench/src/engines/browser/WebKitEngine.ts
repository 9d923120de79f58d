import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { HeError } from '@sealbox/he-core'
import { debianToolPath, freePort, waitFor } from '@sealbox/server/testing'
import { Builder, Capabilities } from 'selenium-webdriver'
import type { BenchEngine, EngineAvailability, EngineSession, EngineStartContext } from '../BenchEngine.ts'
import type { BenchPageHost } from './BenchPageHost.ts'
import { startInBrowser } from './startInBrowser.ts'

const DRIVER = debianToolPath('webkit_driver')
const XVFB_RUN = debianToolPath('xvfb_run')
const XAUTH = debianToolPath('xauth')
const MINIBROWSER = debianToolPath('minibrowser')

/** Resolves once the driver answers `/status`; a driver that exited ends the wait at once. */
function waitForDriver(port: number, driver: ChildProcess): Promise<void> {
  return waitFor(
    'WebKitWebDriver to answer',
    async () => {
      if (driver.exitCode !== null) throw new HeError('INTERNAL', `WebKitWebDriver exited with code ${driver.exitCode}`)
      return (await fetch(`http://127.0.0.1:${port}/status`)).ok
    },
    20_000,
  )
}

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
      const port = await freePort()
      const driver = spawn(XVFB_RUN, ['-a', DRIVER, `--port=${port}`], {
        // NO_AT_BRIDGE silences the accessibility bus warning; SharedArrayBuffer stays
        // undefined in WebKitGTK, even isolated, unless JSC is told otherwise.
        env: { ...process.env, NO_AT_BRIDGE: '1', JSC_useSharedArrayBuffer: '1' },
        stdio: 'ignore',
        detached: true,
      })
      const stopDriver = () => {
        // xvfb-run starts Xvfb and the driver as children: end the whole process group.
        if (driver.exitCode === null && driver.pid) process.kill(-driver.pid, 'SIGTERM')
      }
      try {
        await waitForDriver(port, driver)
        const capabilities = new Capabilities({
          browserName: 'MiniBrowser',
          'webkitgtk:browserOptions': {
            binary: MINIBROWSER,
            args: ['--automation', '--enable-write-console-messages-to-stdout=false'],
          },
        })
        const webdriver = await new Builder()
          .usingServer(`http://127.0.0.1:${port}`)
          .withCapabilities(capabilities)
          .build()
        driver.once('exit', () => onCrash('WebKitWebDriver exited'))
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

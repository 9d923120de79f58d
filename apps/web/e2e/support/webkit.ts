import { type ChildProcess, spawn } from 'node:child_process'
import { freePort, waitFor } from '@sealbox/server/testing'
import { Builder, type WebDriver } from 'selenium-webdriver'
import { WEBKIT_DRIVER_PATH } from './browsers.ts'

const MINIBROWSER = process.env.SEALBOX_MINIBROWSER ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser'

/** A running WebKitWebDriver: each session it opens is a new MiniBrowser. */
export interface WebKitDriver {
  /** A new WebDriver session (its own MiniBrowser process); quit it when done. */
  newSession(): Promise<WebDriver>
  /** Ends the driver and its virtual display. */
  stop(): void
}

/**
 * Starts WebKitGTK's WebDriver. The driver has no headless switch, so it runs under
 * `xvfb-run` (a virtual X display); MiniBrowser is the browser it automates, started
 * afresh for every session.
 */
export async function startWebKitDriver(): Promise<WebKitDriver> {
  const port = await freePort()
  const driverProcess: ChildProcess = spawn('xvfb-run', ['-a', WEBKIT_DRIVER_PATH, `--port=${port}`], {
    env: { ...process.env, NO_AT_BRIDGE: '1', JSC_useSharedArrayBuffer: '1' },
    stdio: 'ignore',
    detached: true,
  })
  const url = `http://127.0.0.1:${port}`
  const stop = () => {
    // xvfb-run starts Xvfb and the driver as children: end the whole process group we started.
    if (driverProcess.pid !== undefined) {
      try {
        process.kill(-driverProcess.pid, 'SIGTERM')
      } catch {
        // already gone
      }
    }
  }
  try {
    await waitFor('WebKitWebDriver to answer', async () => (await fetch(`${url}/status`)).ok, 30_000)
  } catch (error) {
    stop()
    throw error
  }
  return {
    newSession: () =>
      new Builder()
        .usingServer(url)
        .withCapabilities({
          browserName: 'MiniBrowser',
          'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
        })
        .build(),
    stop,
  }
}

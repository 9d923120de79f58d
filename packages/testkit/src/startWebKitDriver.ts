import { type ChildProcess, spawn } from 'node:child_process'
import { HeError } from '@sealbox/he-core'
import { Builder, Capabilities, type WebDriver } from 'selenium-webdriver'
import { debianToolPath } from './debianTools.ts'
import { freePort } from './freePort.ts'
import { waitFor } from './waitFor.ts'

/** Options of `startWebKitDriver`. */
export interface WebKitDriverOptions {
  /** More MiniBrowser flags after `--automation`. */
  minibrowserArgs?: readonly string[]
  /** How long to wait for the driver's `/status`. */
  readyTimeoutMs?: number
}

/** A running WebKitWebDriver: each session it opens is a new MiniBrowser. */
export interface WebKitDriver {
  /** The driver's WebDriver endpoint. */
  readonly url: string
  /** The `xvfb-run` process (its `exit` event says the driver is gone). */
  readonly process: ChildProcess
  /** A new WebDriver session (its own MiniBrowser process); quit it when done. */
  newSession(): Promise<WebDriver>
  /** Ends the driver and its virtual display. */
  stop(): void
}

/**
 * Starts WebKitGTK's WebDriver (Debian's `webkit2gtk-driver`). The driver has no
 * headless switch, so it runs under `xvfb-run -a` (a virtual X display); MiniBrowser is
 * the browser it automates, started afresh for every session. A driver that exits
 * before it answers ends the wait at once.
 */
export async function startWebKitDriver(options: WebKitDriverOptions = {}): Promise<WebKitDriver> {
  const port = await freePort()
  const driver = spawn(debianToolPath('xvfb_run'), ['-a', debianToolPath('webkit_driver'), `--port=${port}`], {
    // NO_AT_BRIDGE silences the accessibility bus warning; SharedArrayBuffer stays
    // undefined in WebKitGTK, even isolated, unless JSC is told otherwise.
    env: { ...process.env, NO_AT_BRIDGE: '1', JSC_useSharedArrayBuffer: '1' },
    stdio: 'ignore',
    detached: true,
  })
  const url = `http://127.0.0.1:${port}`
  const stop = () => {
    // xvfb-run starts Xvfb and the driver as children: end the whole process group we started.
    if (driver.exitCode === null && driver.signalCode === null && driver.pid !== undefined) {
      try {
        process.kill(-driver.pid, 'SIGTERM')
      } catch {
        // already gone
      }
    }
  }
  try {
    await waitFor(
      'WebKitWebDriver to answer',
      async () => {
        if (driver.exitCode !== null) {
          throw new HeError('INTERNAL', `WebKitWebDriver exited with code ${driver.exitCode}`)
        }
        return (await fetch(`${url}/status`)).ok
      },
      options.readyTimeoutMs ?? 30_000,
    )
  } catch (error) {
    stop()
    throw error
  }
  const capabilities = new Capabilities({
    browserName: 'MiniBrowser',
    'webkitgtk:browserOptions': {
      binary: debianToolPath('minibrowser'),
      args: ['--automation', ...(options.minibrowserArgs ?? [])],
    },
  })
  return {
    url,
    process: driver,
    newSession: () => new Builder().usingServer(url).withCapabilities(capabilities).build(),
    stop,
  }
}

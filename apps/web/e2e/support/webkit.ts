import { type ChildProcess, spawn } from 'node:child_process'
import { Builder, type WebDriver } from 'selenium-webdriver'
import { WEBKIT_DRIVER_PATH } from './browsers.ts'
import { freePort } from './freePort.ts'

const MINIBROWSER = process.env.SEALBOX_MINIBROWSER ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser'

async function waitForDriver(url: string, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${url}/status`)
      if (response.ok) return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`WebKitWebDriver did not start at ${url}`)
}

/**
 * WebKitGTK through its WebDriver. The driver has no headless switch, so it runs
 * under `xvfb-run` (a virtual X display); MiniBrowser is the browser it automates.
 */
export async function launchWebKit(): Promise<{ driver: WebDriver; close: () => Promise<void> }> {
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
    await waitForDriver(url, Date.now() + 30_000)
    const driver = await new Builder()
      .usingServer(url)
      .withCapabilities({
        browserName: 'MiniBrowser',
        'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
      })
      .build()
    return {
      driver,
      close: async () => {
        try {
          await driver.quit()
        } finally {
          stop()
        }
      },
    }
  } catch (error) {
    stop()
    throw error
  }
}

import { startWebKitDriver, type WebKitDriver } from '@sealbox/testkit'
import type { WebDriver } from 'selenium-webdriver'
import { By, until } from 'selenium-webdriver'
import { test as base, inject } from 'vitest'

/**
 * Vitest fixtures for the WebKitGTK suite: `webkitDriver` is one WebKitWebDriver (under
 * a virtual display) per file; `webkit` is a new session per test — its own MiniBrowser,
 * so no page or saved workspace carries over — on the sandbox's Parameters panel with
 * the SEAL worker ready. Every test builds what it needs and can run alone (`-t`).
 */
export const test = base.extend<{
  $test: { webkit: WebDriver }
  $file: { webkitDriver: WebKitDriver }
}>({
  webkitDriver: [
    // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern.
    async ({}, use) => {
      const driver = await startWebKitDriver()
      try {
        await use(driver)
      } finally {
        driver.stop()
      }
    },
    { scope: 'file' },
  ],
  webkit: async ({ webkitDriver }, use) => {
    const session = await webkitDriver.newSession()
    try {
      await session.get(`${inject('sandboxUrl')}/#parameters`)
      await session.wait(until.elementLocated(By.css('[data-testid="worker-ready"]')), 60_000)
      await use(session)
    } finally {
      await session.quit()
    }
  },
})

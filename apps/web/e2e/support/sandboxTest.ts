import { type Browser, chromium, type Page } from 'playwright-core'
import { test as base, inject } from 'vitest'

/** How a test's sandbox page is opened. */
export interface SandboxOptions {
  viewport?: { width: number; height: number }
  /** Runs before the page loads (extra listeners); may add to the page's error list. */
  prepare?: (page: Page, errors: string[]) => void
}

/** A fresh sandbox page: its own browser context (own IndexedDB, so no saved workspace), ready to use. */
export interface SandboxPage {
  page: Page
  /** Uncaught page errors (and anything `prepare` adds); tests expect it to stay empty. */
  errors: string[]
}

/** The default window: wide enough for every panel's two-column layout. */
const VIEWPORT = { width: 1360, height: 900 }

/**
 * Vitest fixtures for the Chromium suites. `chromium` is this file's connection to the
 * project's one headless Debian Chromium (launched by e2e/globalSetup.ts); `sandbox`
 * opens the served sandbox (on its Parameters panel, SEAL worker ready) in a fresh
 * browser context per test (its own storage, cache and renderer), so every test starts
 * from an empty workspace, builds what it needs itself, and can run alone (`-t`). A file changes
 * how pages open by overriding `sandboxOptions` (`test.extend({ sandboxOptions: … })`).
 */
export const test = base.extend<{
  $test: { sandboxOptions: SandboxOptions; sandbox: SandboxPage; newPage: () => Promise<Page> }
  $file: { chromium: Browser }
}>({
  chromium: [
    // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern.
    async ({}, use) => {
      const browser = await chromium.connect(inject('chromiumWsEndpoint'))
      try {
        await use(browser)
      } finally {
        // Closes the contexts this file opened and disconnects; the browser stays for other files.
        await browser.close()
      }
    },
    { scope: 'file' },
  ],
  sandboxOptions: {},
  /** Pages in fresh contexts of the project's Chromium (a second "person"), closed after the test. */
  newPage: async ({ chromium: browser }, use) => {
    const contexts: Array<Awaited<ReturnType<Browser['newContext']>>> = []
    await use(async () => {
      const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1, acceptDownloads: true })
      contexts.push(context)
      return context.newPage()
    })
    for (const context of contexts) await context.close()
  },
  sandbox: async ({ newPage, sandboxOptions }, use) => {
    const page = await newPage()
    const errors: string[] = []
    if (sandboxOptions.viewport) await page.setViewportSize(sandboxOptions.viewport)
    page.on('pageerror', (error) => errors.push(String(error)))
    sandboxOptions.prepare?.(page, errors)
    await page.goto(`${inject('sandboxUrl')}/#parameters`)
    await page.getByTestId('worker-ready').waitFor({ timeout: 60_000 })
    await use({ page, errors })
  },
})

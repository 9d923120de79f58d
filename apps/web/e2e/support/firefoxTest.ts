import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { firefoxLaunchOptions } from '@sealbox/testkit'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'
import { test as base, inject } from 'vitest'

/** A fresh Firefox page on the sandbox, and its uncaught page errors (tests expect none). */
export interface FirefoxPage {
  page: Page
  errors: string[]
}

/**
 * Vitest fixtures for the Firefox suite: `firefox` is one Firefox ESR per file (driven
 * over WebDriver BiDi: Playwright cannot drive stock Firefox); `firefoxPage` opens the
 * sandbox in a new browser context per test (its own storage, so no saved workspace),
 * on the Parameters panel with the SEAL worker ready. Every test builds what it needs
 * and can run alone (`-t`).
 */
export const test = base.extend<{
  $test: { firefoxPage: FirefoxPage }
  $file: { firefox: Browser }
}>({
  firefox: [
    // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern.
    async ({}, use) => {
      const profile = await mkdtemp(join(tmpdir(), 'sealbox-firefox-'))
      try {
        const browser = await puppeteer.launch({
          ...firefoxLaunchOptions(),
          userDataDir: profile,
        })
        try {
          await use(browser)
        } finally {
          await browser.close()
        }
      } finally {
        await rm(profile, { recursive: true, force: true })
      }
    },
    { scope: 'file' },
  ],
  firefoxPage: async ({ firefox }, use) => {
    const context = await firefox.createBrowserContext()
    try {
      const page = await context.newPage()
      const errors: string[] = []
      page.on('pageerror', (error) => errors.push(String(error)))
      await page.setViewport({ width: 1280, height: 900 })
      await page.goto(`${inject('sandboxUrl')}/#parameters`)
      await page.waitForSelector('[data-testid="worker-ready"]', { timeout: 60_000 })
      await use({ page, errors })
    } finally {
      await context.close()
    }
  },
})

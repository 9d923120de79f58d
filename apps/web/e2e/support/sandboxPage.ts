import type { Page } from 'playwright-core'
import { launchChromium } from './browsers.ts'

/** The served sandbox open in a fresh Chromium, with the page errors it raised. */
export interface SandboxPage {
  page: Page
  /** Uncaught page errors (and anything `prepare` adds); tests expect it to stay empty. */
  errors: string[]
  close(): Promise<void>
}

/**
 * Opens `url` (the served sandbox) on its Parameters panel in a fresh Chromium profile,
 * collecting uncaught page errors, and resolves once the SEAL worker says ready.
 * `prepare` runs before the page loads (extra listeners).
 */
export async function openSandbox(
  url: string,
  options: { viewport?: { width: number; height: number }; prepare?: (page: Page, errors: string[]) => void } = {},
): Promise<SandboxPage> {
  const browser = await launchChromium()
  const page = await browser.context.newPage()
  const errors: string[] = []
  if (options.viewport) await page.setViewportSize(options.viewport)
  page.on('pageerror', (error) => errors.push(String(error)))
  options.prepare?.(page, errors)
  await page.goto(`${url}/#parameters`)
  await page.getByTestId('worker-ready').waitFor({ timeout: 60_000 })
  return { page, errors, close: browser.close }
}

/** Clicks a panel's tab and waits for the panel. */
export async function openPanel(page: Page, name: string): Promise<void> {
  await page.getByRole('tab', { name: new RegExp(name) }).click()
  await page.locator(`[data-panel="${name.toLowerCase()}"]`).waitFor()
}

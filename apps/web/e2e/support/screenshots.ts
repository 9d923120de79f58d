import { mkdir } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import type { Locator, Page } from 'playwright-core'

/** Committed screenshots of each panel (the README shows them). */
export const SCREENSHOT_DIR = fileURLToPath(new URL('../../screenshots', import.meta.url))

/**
 * Whether this run refreshes the committed screenshots: only when asked for with
 * `UPDATE_SCREENSHOTS=1`, so `npm test` leaves a clean checkout clean.
 */
export const UPDATE_SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1'

/** With UPDATE_SCREENSHOTS=1, saves a full-page screenshot as screenshots/<name>.png. */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  if (!UPDATE_SCREENSHOTS) return
  await mkdir(SCREENSHOT_DIR, { recursive: true })
  // Park the mouse so no hover state leaks into the picture.
  await page.mouse.move(0, 0)
  await page.screenshot({ path: `${SCREENSHOT_DIR}/${name}.png`, fullPage: true, animations: 'disabled' })
}

/** With UPDATE_SCREENSHOTS=1, saves a screenshot of one element (a card, a chart) as screenshots/<name>.png. */
export async function saveElementScreenshot(element: Locator, name: string): Promise<void> {
  if (!UPDATE_SCREENSHOTS) return
  await mkdir(SCREENSHOT_DIR, { recursive: true })
  await element.page().mouse.move(0, 0)
  await element.screenshot({ path: `${SCREENSHOT_DIR}/${name}.png`, animations: 'disabled' })
}

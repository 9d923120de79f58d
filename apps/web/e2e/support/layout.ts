import type { Locator, Page } from 'playwright-core'
import { expect } from 'vitest'

/** Every panel's tab name, in the order of the panel tabs. */
export const PANEL_NAMES = ['Parameters', 'Keys', 'Variables', 'Functions', 'Code', 'Server'] as const

/**
 * Fails when the document is wider than the viewport (a sideways scroll bar), naming
 * the elements that stick out (and saves a debug screenshot, see `saveDebugShot`).
 */
export async function expectNoHorizontalOverflow(page: Page, where: string): Promise<void> {
  await saveDebugShot(page, where)
  const measured = await page.evaluate(() => {
    const root = document.documentElement
    const limit = root.clientWidth
    const culprits = [...document.querySelectorAll('body *')]
      .filter((element) => element.getBoundingClientRect().right > limit + 0.5)
      .slice(0, 5)
      .map((element) => `${element.tagName.toLowerCase()}.${[...element.classList].join('.')}`)
    return { scrollWidth: root.scrollWidth, clientWidth: limit, culprits }
  })
  expect(measured.scrollWidth <= measured.clientWidth, `${where}: ${JSON.stringify(measured)}`).toBe(true)
}

/** Whether two elements' boxes intersect (controls drawn on top of each other). */
export async function overlapping(a: Locator, b: Locator): Promise<boolean> {
  const [x, y] = await Promise.all([a.boundingBox(), b.boundingBox()])
  if (!x || !y) return false
  return x.x < y.x + y.width && y.x < x.x + x.width && x.y < y.y + y.height && y.y < x.y + x.height
}

/** With `SEALBOX_E2E_SHOTS=<dir>`, a full-page screenshot named after `what`, for a person to look at. */
export async function saveDebugShot(page: Page, what: string): Promise<void> {
  const shots = process.env.SEALBOX_E2E_SHOTS
  if (shots) await page.screenshot({ path: `${shots}/${what.replace(/\W+/g, '-')}.png`, fullPage: true })
}

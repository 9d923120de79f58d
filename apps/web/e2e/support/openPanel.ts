import type { Page } from 'playwright-core'

/** Clicks a panel's tab and waits for the panel. */
export async function openPanel(page: Page, name: string): Promise<void> {
  await page.getByRole('tab', { name: new RegExp(name) }).click()
  await page.locator(`[data-panel="${name.toLowerCase()}"]`).waitFor()
}

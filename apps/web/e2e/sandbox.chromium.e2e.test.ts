import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { launchChromium } from './support/browsers.ts'
import { saveScreenshot } from './support/screenshots.ts'

let page: Page
let close: () => Promise<void>
const errors: string[] = []

beforeAll(async () => {
  const browser = await launchChromium()
  close = browser.close
  page = await browser.context.newPage()
  page.on('pageerror', (error) => errors.push(String(error)))
  await page.goto(`${inject('sandboxUrl')}/#parameters`)
  await page.getByTestId('worker-ready').waitFor({ timeout: 60_000 })
})

afterAll(async () => {
  await close?.()
})

async function openPanel(name: string): Promise<void> {
  await page.getByRole('tab', { name: new RegExp(name) }).click()
  await page.locator(`[data-panel="${name.toLowerCase()}"]`).waitFor()
}

describe('sandbox in Chromium', () => {
  it('validates parameters live and builds a context', async () => {
    await openPanel('Parameters')
    await page.getByText('Custom bit sizes').click()
    const bits = page.getByLabel('Prime bit sizes')
    await bits.fill('60, 60, 60')
    await expect(page.getByRole('alert').first().textContent()).resolves.toMatch(/allows at most 109/)
    await expect(page.getByRole('button', { name: 'Create context' }).isDisabled()).resolves.toBe(true)
    await bits.fill('36, 36, 37')
    await page.getByRole('button', { name: 'Create context' }).click()
    await page.getByTestId('params-in-use').waitFor()
    const facts = await page.getByTestId('params-facts').textContent()
    expect(facts).toContain('4,096')
    expect(facts).toContain('1,032,193')
    await saveScreenshot(page, 'parameters')
    expect(errors).toEqual([])
  })
})

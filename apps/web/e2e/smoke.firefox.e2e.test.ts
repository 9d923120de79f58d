import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { FIREFOX_PATH } from './support/browsers.ts'
import { BFV_EXAMPLE_STEPS, bfvExampleLines } from './support/exampleOracle.ts'

let browser: Browser
let page: Page
let profile: string
const errors: string[] = []

beforeAll(async () => {
  profile = await mkdtemp(join(tmpdir(), 'sealbox-firefox-'))
  // Stock Firefox is driven over WebDriver BiDi (Playwright cannot drive it).
  browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX_PATH,
    headless: true,
    userDataDir: profile,
  })
  page = await browser.newPage()
  await page.setViewport({ width: 1280, height: 900 })
  page.on('pageerror', (error) => errors.push(String(error)))
})

afterAll(async () => {
  await browser?.close()
  if (profile) await rm(profile, { recursive: true, force: true })
})

describe('sandbox smoke in Firefox', () => {
  it('builds a context with live facts', async () => {
    await page.goto(`${inject('sandboxUrl')}/#parameters`)
    await page.waitForSelector('[data-testid="worker-ready"]', { timeout: 60_000 })
    await page.locator('form[aria-label="Encryption parameters"] button[type="submit"]').click()
    await page.waitForSelector('[data-testid="params-in-use"]', { timeout: 60_000 })
    const facts = await page.$eval('[data-testid="params-facts"]', (element) => element.textContent ?? '')
    expect(facts).toContain('1,032,193')
  })

  it('loads the BFV example, runs its pipeline, and prints what he-core prints in Node', async () => {
    const expected = await bfvExampleLines()
    await page.locator('button ::-p-text(Examples)').click()
    await page.locator('button[aria-label="Load the BFV, n = 4096 example"]').click()
    await page.locator('#tab-functions').click()
    await page.waitForSelector(
      `[data-testid="step-${BFV_EXAMPLE_STEPS}"] [data-testid="step-result"] [aria-label="done"]`,
      {
        timeout: 120_000,
      },
    )
    await page.locator('#tab-code').click()
    await page.waitForSelector('[data-testid="expected-output"]')
    const printed = await page.$eval('[data-testid="expected-output"]', (element) => element.textContent ?? '')
    expect(printed).toBe(expected)
    expect(errors).toEqual([])
  })
})

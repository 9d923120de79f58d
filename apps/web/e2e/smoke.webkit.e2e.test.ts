import { By, until, type WebDriver } from 'selenium-webdriver'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { BFV_EXAMPLE_STEPS, bfvExampleLines } from './support/exampleOracle.ts'
import { launchWebKit } from './support/webkit.ts'

let driver: WebDriver
let close: (() => Promise<void>) | undefined

beforeAll(async () => {
  const browser = await launchWebKit()
  driver = browser.driver
  close = browser.close
})

afterAll(async () => {
  await close?.()
})

describe('sandbox smoke in WebKitGTK', () => {
  it('builds a context with live facts', async () => {
    await driver.get(`${inject('sandboxUrl')}/#parameters`)
    await driver.wait(until.elementLocated(By.css('[data-testid="worker-ready"]')), 60_000)
    await driver.findElement(By.css('form[aria-label="Encryption parameters"] button[type="submit"]')).click()
    const inUse = await driver.wait(until.elementLocated(By.css('[data-testid="params-in-use"]')), 60_000)
    expect(await inUse.getText()).toMatch(/BFV, n = 4096/)
    const facts = await driver.findElement(By.css('[data-testid="params-facts"]')).getText()
    expect(facts).toContain('1,032,193')
  })

  it('loads the BFV example, runs its pipeline, and prints what he-core prints in Node', async () => {
    const expected = await bfvExampleLines()
    await driver.findElement(By.xpath('//button[normalize-space()="Examples"]')).click()
    await driver.findElement(By.css('button[aria-label="Load the BFV, n = 4096 example"]')).click()
    await driver.findElement(By.id('tab-functions')).click()
    await driver.wait(
      until.elementLocated(
        By.css(`[data-testid="step-${BFV_EXAMPLE_STEPS}"] [data-testid="step-result"] [aria-label="done"]`),
      ),
      120_000,
    )
    await driver.findElement(By.id('tab-code')).click()
    const printed = await driver.wait(until.elementLocated(By.css('[data-testid="expected-output"]')), 30_000)
    // getText() reports rendered text; the <pre> keeps the program's line breaks.
    expect(await printed.getText()).toBe(expected)
  })
})

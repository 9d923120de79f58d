import { By, until } from 'selenium-webdriver'
import { describe, expect } from 'vitest'
import { BFV_EXAMPLE_STEPS, bfvExampleLines } from './support/exampleOracle.ts'
import { test } from './support/webkitTest.ts'

/*
 * The sandbox in WebKitGTK: each test has its own WebDriver session (a new MiniBrowser)
 * and builds what it needs, so each can run alone.
 */

describe('sandbox smoke in WebKitGTK', () => {
  test('builds a context with live facts', async ({ webkit: driver }) => {
    await driver.findElement(By.css('form[aria-label="Encryption parameters"] button[type="submit"]')).click()
    const inUse = await driver.wait(until.elementLocated(By.css('[data-testid="params-in-use"]')), 60_000)
    expect(await inUse.getText()).toMatch(/BFV, n = 4096/)
    const facts = await driver.findElement(By.css('[data-testid="params-facts"]')).getText()
    expect(facts).toContain('1,032,193')
  })

  test('loads the BFV example, runs its pipeline, and prints what he-core prints in Node', async ({
    webkit: driver,
  }) => {
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

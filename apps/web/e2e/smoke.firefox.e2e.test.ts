import { describe, expect } from 'vitest'
import { BFV_EXAMPLE_STEPS, bfvExampleLines } from './support/exampleOracle.ts'
import { test } from './support/firefoxTest.ts'

/*
 * The sandbox in Firefox ESR: each test opens its own fresh page (a browser context of
 * its own) and builds what it needs, so each can run alone.
 */

describe('sandbox smoke in Firefox', () => {
  test('builds a context with live facts', async ({ firefoxPage: { page, errors } }) => {
    await page.locator('form[aria-label="Encryption parameters"] button[type="submit"]').click()
    await page.waitForSelector('[data-testid="params-in-use"]', { timeout: 60_000 })
    const facts = await page.$eval('[data-testid="params-facts"]', (element) => element.textContent ?? '')
    expect(facts).toContain('1,032,193')
    expect(errors).toEqual([])
  })

  test('loads the BFV example, runs its pipeline, and prints what he-core prints in Node', async ({
    firefoxPage: { page, errors },
  }) => {
    const expected = await bfvExampleLines()
    await page.locator('button ::-p-text(Examples)').click()
    await page.locator('button[aria-label="Load the BFV, n = 4096 example"]').click()
    await page.locator('#tab-functions').click()
    await page.waitForSelector(
      `[data-testid="step-${BFV_EXAMPLE_STEPS}"] [data-testid="step-result"] [aria-label="done"]`,
      { timeout: 120_000 },
    )
    await page.locator('#tab-code').click()
    await page.waitForSelector('[data-testid="expected-output"]')
    const printed = await page.$eval('[data-testid="expected-output"]', (element) => element.textContent ?? '')
    expect(printed).toBe(expected)
    expect(errors).toEqual([])
  })
})

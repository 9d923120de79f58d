import { By, until, type WebDriver } from 'selenium-webdriver'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
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
  it('loads SEAL in the worker and builds a context', async () => {
    await driver.get(`${inject('sandboxUrl')}/#parameters`)
    await driver.wait(until.elementLocated(By.css('[data-testid="worker-ready"]')), 60_000)
    await driver.findElement(By.css('button[type="submit"]')).click()
    const inUse = await driver.wait(until.elementLocated(By.css('[data-testid="params-in-use"]')), 60_000)
    expect(await inUse.getText()).toMatch(/BFV, n = 4096/)
    const facts = await driver.findElement(By.css('[data-testid="params-facts"]')).getText()
    expect(facts).toContain('1,032,193')
  })
})

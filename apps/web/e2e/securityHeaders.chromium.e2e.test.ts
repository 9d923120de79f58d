import type { Page } from 'playwright-core'
import { describe, expect, inject } from 'vitest'
import { test } from './support/sandboxTest.ts'

/*
 * The built sandbox under the server's security headers: its strict CSP
 * must still let the page start its module worker, compile SEAL's WebAssembly and call
 * the server, COOP/COEP must make it cross-origin isolated, and the Swagger UI at /docs
 * must render under its own CSP. Chromium's own "Refused to…" lines do not reach
 * Playwright's console events, so every `securitypolicyviolation` event (page from the
 * start, SEAL worker from when Playwright sees it) is logged by a listener we add.
 * Whatever the worker needs and is refused shows up as a failed step as well. Each test
 * opens its own fresh page.
 */

/** A fresh page whose CSP violations and page errors are collected from the start. */
async function watchedPage(newPage: () => Promise<Page>) {
  const page = await newPage()
  const violations: string[] = []
  const errors: string[] = []
  page.on('console', (message) => {
    const text = message.text()
    if (/Content Security Policy|Refused to/i.test(text)) violations.push(text)
  })
  page.on('pageerror', (error) => errors.push(String(error)))
  page.on('worker', (worker) => {
    worker.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(`worker: ${message.text()}`)
    })
    void worker
      .evaluate(() => {
        self.addEventListener('securitypolicyviolation', (event) => {
          console.error(`Refused to load ${event.blockedURI} (Content Security Policy ${event.violatedDirective})`)
        })
      })
      .catch(() => undefined)
  })
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`Refused to load ${event.blockedURI} (Content Security Policy ${event.violatedDirective})`)
    })
  })
  return { page, violations, errors }
}

/** The served sandbox in a watched page, its SEAL worker ready. */
async function openSandboxWatched(newPage: () => Promise<Page>) {
  const watched = await watchedPage(newPage)
  await watched.page.goto(`${inject('sandboxUrl')}/#parameters`)
  await watched.page.getByTestId('worker-ready').waitFor({ timeout: 60_000 })
  return watched
}

describe('the served sandbox under its security headers (Chromium)', () => {
  test('is cross-origin isolated and served with the CSP', async ({ newPage }) => {
    const { page, violations, errors } = await watchedPage(newPage)
    const response = await page.goto(`${inject('sandboxUrl')}/#parameters`)
    const headers = response?.headers() ?? {}
    expect(headers['content-security-policy']).toContain("script-src 'self' 'wasm-unsafe-eval'")
    expect(headers['cross-origin-opener-policy']).toBe('same-origin')
    expect(headers['cross-origin-embedder-policy']).toBe('require-corp')
    expect(headers['cache-control']).toBe('no-cache')
    await page.getByTestId('worker-ready').waitFor({ timeout: 60_000 })
    await expect(page.evaluate(() => globalThis.crossOriginIsolated)).resolves.toBe(true)
    expect(violations).toEqual([])
    expect(errors).toEqual([])
  })

  test('makes keys and runs a pipeline in its worker with no CSP violation', async ({ newPage }) => {
    const { page, violations, errors } = await openSandboxWatched(newPage)
    await page.getByRole('button', { name: 'Examples' }).click()
    await page.getByRole('button', { name: 'Load the BFV, n = 4096 example' }).click()
    await page.getByRole('tab', { name: /Functions/ }).click()
    await page.locator('[data-panel="functions"]').waitFor()
    await page.getByTestId('step-1').getByTestId('step-result').getByLabel('done').waitFor({ timeout: 120_000 })
    await expect(page.getByTestId('step-1').getByTestId('preview').textContent()).resolves.toMatch(/^\[10, -40, 90/)
    expect(violations).toEqual([])
    expect(errors).toEqual([])
  })

  test('connects to the server from its worker with no CSP violation', async ({ newPage }) => {
    const { page, violations, errors } = await openSandboxWatched(newPage)
    await page.getByRole('tab', { name: /Server/ }).click()
    await page.locator('[data-panel="server"]').waitFor()
    await page.getByRole('button', { name: 'Connect' }).click()
    await page.getByTestId('server-connection').getByText('Ready').waitFor({ timeout: 60_000 })
    expect(violations).toEqual([])
    expect(errors).toEqual([])
  })

  test('renders the API docs under their own CSP', async ({ newPage }) => {
    const { page, violations, errors } = await watchedPage(newPage)
    const response = await page.goto(`${inject('sandboxUrl')}/docs`)
    expect(response?.headers()['content-security-policy']).toContain("style-src 'self' 'unsafe-inline'")
    await page.locator('.swagger-ui .info .title').getByText('sealbox server').waitFor({ timeout: 30_000 })
    await page.locator('.opblock-summary-path', { hasText: '/api/v1/session' }).first().waitFor()
    expect(violations).toEqual([])
    expect(errors).toEqual([])
  })
})

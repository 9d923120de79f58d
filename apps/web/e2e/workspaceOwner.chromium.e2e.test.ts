import type { Page } from 'playwright-core'
import { expect, inject } from 'vitest'
import { saveIssueShot } from './support/issueShots.ts'
import { openPanel } from './support/openPanel.ts'
import { test } from './support/sandboxTest.ts'

/*
 * One owner per workspace (issue 29, major 3): two tabs of one browser share one
 * workspace; the second is read-only until it takes over, and the stale one can then
 * change nothing — so it cannot overwrite the newer secret key. And keys just made
 * survive a reload while the status bar says "Saving…".
 */

const VIEWPORT = { width: 1360, height: 900 }

async function openSandbox(page: Page): Promise<void> {
  await page.goto(`${inject('sandboxUrl')}/#parameters`)
  await page.getByTestId('worker-ready').waitFor({ timeout: 60_000 })
}

/** The Keys panel's key set id, or '' when there is none. */
async function keySetOf(page: Page): Promise<string> {
  await openPanel(page, 'Keys')
  const label = page.getByText(/^key set [0-9a-f]{8}$/)
  return (await label.count()) ? ((await label.textContent()) ?? '') : ''
}

async function createContextAndKeys(page: Page): Promise<string> {
  await page.getByTestId('polyModulusDegree-4096').check({ force: true })
  await page.getByRole('button', { name: 'Create context' }).click()
  await page.getByTestId('next-step').waitFor({ timeout: 60_000 })
  await openPanel(page, 'Keys')
  await page.getByRole('button', { name: 'Generate keys' }).click()
  await page.getByTestId('key-secretKey').getByText('ready').waitFor({ timeout: 60_000 })
  return keySetOf(page)
}

/** Whether the page's panels take no input (`inert`: another tab owns the workspace). */
async function isInert(page: Page): Promise<boolean> {
  return page.locator('.panel-main').evaluate((element) => (element as HTMLElement).inert)
}

test('a second tab is read-only until it takes over; the stale tab then cannot overwrite the new secret key', async ({
  chromium,
}) => {
  const context = await chromium.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1 })
  try {
    const errors: string[] = []
    const a = await context.newPage()
    const b = await context.newPage()
    for (const page of [a, b]) page.on('pageerror', (error) => errors.push(String(error)))
    await openSandbox(a)
    const first = await createContextAndKeys(a)

    // B opens the same workspace: told, read-only, with a way to take over.
    await openSandbox(b)
    const bannerB = b.getByTestId('read-only-banner')
    await bannerB.waitFor({ timeout: 10_000 }).catch(() => undefined)
    await saveIssueShot(b, 'major3-second-tab')
    await expect(bannerB.textContent()).resolves.toMatch(/open in another tab, which owns it: this tab is read-only/)
    await expect(isInert(b)).resolves.toBe(true)
    await expect(isInert(a)).resolves.toBe(false)
    await expect(keySetOf(b)).resolves.toBe(first)

    // B takes over: A is told and turns read-only; B makes a new key set.
    await bannerB.getByRole('button', { name: 'Take over' }).click()
    await a.getByTestId('read-only-banner').waitFor({ timeout: 30_000 })
    await bannerB.waitFor({ state: 'detached', timeout: 60_000 })
    await b.getByTestId('worker-ready').waitFor({ timeout: 60_000 })
    await expect(isInert(a)).resolves.toBe(true)
    await expect(isInert(b)).resolves.toBe(false)
    await openPanel(b, 'Keys')
    await b.getByText('Make a new one').click()
    await b.getByRole('button', { name: 'Generate keys' }).click()
    await b
      .getByRole('alertdialog', { name: 'Replace the secret key?' })
      .getByRole('button', { name: /^Make a new secret key/ })
      .click()
    await expect.poll(() => keySetOf(b), { timeout: 60_000 }).not.toBe(first)
    const second = await keySetOf(b)
    expect(second).toMatch(/^key set [0-9a-f]{8}$/)
    await saveIssueShot(a, 'major3-stale-tab')

    // The stale tab can change nothing (its panels take no input) and saves nothing.
    await expect(a.getByText('Read-only (open in another tab)').count()).resolves.toBe(1)
    await a
      .getByRole('button', { name: 'Generate keys' })
      .click({ timeout: 2_000 })
      .catch(() => undefined)
    await a.reload()
    // Reloaded, A is the second tab now: read-only, showing B's newer key set.
    await a.getByTestId('worker-ready').waitFor({ timeout: 60_000 })
    await a.getByTestId('read-only-banner').waitFor()
    await expect(keySetOf(a)).resolves.toBe(second)

    // B reloads: its new secret key is still there.
    await b.reload()
    await b.getByTestId('worker-ready').waitFor({ timeout: 60_000 })
    await expect(keySetOf(b)).resolves.toBe(second)
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}, 300_000)

test('reloading right after Generate keys ("Saving…") keeps the new keys', async ({ sandbox: { page, errors } }) => {
  const keySet = await createContextAndKeys(page)
  // At once: the keys are shown ready only once they are saved.
  await page.reload()
  await page.getByTestId('worker-ready').waitFor({ timeout: 60_000 })
  await saveIssueShot(page, 'major3-reload-after-generate')
  await expect(keySetOf(page)).resolves.toBe(keySet)
  await page.getByTestId('key-secretKey').getByText('ready').waitFor({ timeout: 60_000 })

  // A new key set, and a reload at once: the new one, not the old one.
  await page.getByText('Make a new one').click()
  await page.getByRole('button', { name: 'Generate keys' }).click()
  await page
    .getByRole('alertdialog', { name: 'Replace the secret key?' })
    .getByRole('button', { name: /^Make a new secret key/ })
    .click()
  await expect.poll(() => keySetOf(page), { timeout: 60_000 }).not.toBe(keySet)
  const fresh = await keySetOf(page)
  await page.reload()
  await page.getByTestId('worker-ready').waitFor({ timeout: 60_000 })
  await expect(keySetOf(page)).resolves.toBe(fresh)
  expect(errors).toEqual([])
}, 300_000)

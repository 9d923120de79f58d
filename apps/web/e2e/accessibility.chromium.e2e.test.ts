import type { Page } from 'playwright-core'
import { describe, expect, inject } from 'vitest'
import { runAxe } from './support/axe.ts'
import { exhaustedWorkspace } from './support/exhaustedWorkspace.ts'
import { PANEL_NAMES } from './support/layout.ts'
import { openPanel } from './support/openPanel.ts'
import { test } from './support/sandboxTest.ts'
import { openWorkspaceLink, workspaceLink } from './support/workspaceLink.ts'

const EXHAUSTED = exhaustedWorkspace()

/*
 * Accessibility of the sandbox in Chromium, on a workspace with something in every
 * panel: every button has a name of its own, a skip link leads to the open panel, and
 * powers of two read as words. Each test opens its own fresh page and runs alone.
 */

/** CKKS at n = 8192 (its scale reads as a power of two), made into a context. */
async function ckksParams(page: Page): Promise<void> {
  await page.getByTestId('scheme-ckks').check({ force: true })
  await page.getByTestId('polyModulusDegree-8192').check({ force: true })
  await page.getByRole('button', { name: 'Create context' }).click()
  await page.getByTestId('params-in-use').waitFor({ timeout: 60_000 })
}

/** The accessible name of every button Chromium exposes on the page ('' when it has none). */
async function buttonNames(page: Page): Promise<string[]> {
  const tree = await page.locator('body').ariaSnapshot()
  return tree
    .split('\n')
    .map((line) => /^\s*- button(?: "((?:[^"\\]|\\.)*)")?/.exec(line))
    .filter((match) => match !== null)
    .map((match) => match[1] ?? '')
}

describe('sandbox accessibility in Chromium', () => {
  test('reads powers of two as words ("2 to the power 40"), not "2^40"', async ({ sandbox: { page, errors } }) => {
    await page.getByTestId('scheme-ckks').check({ force: true })
    await page.getByTestId('polyModulusDegree-8192').check({ force: true })
    const scale = page.getByTestId('params-facts').getByRole('img', { name: /^2 to the power \d+$/ })
    await expect(scale.textContent()).resolves.toMatch(/^2\d+$/)
    await expect(scale.locator('sup').count()).resolves.toBe(1)
    await page.getByRole('button', { name: 'Create context' }).click()
    await page.getByTestId('params-in-use').waitFor({ timeout: 60_000 })
    expect(errors).toEqual([])
  })

  test('gives every button on every panel a name of its own', async ({ sandbox: { page, errors } }) => {
    await ckksParams(page)
    await openPanel(page, 'Keys')
    await page.getByRole('button', { name: 'Generate keys' }).click()
    await page.getByTestId('key-relinKeys').getByText('ready').waitFor({ timeout: 60_000 })
    await openPanel(page, 'Variables')
    for (const values of ['1.5, 2', '3, 4']) {
      await page.getByLabel('Values').fill(values)
      await page.getByRole('button', { name: 'Encode and encrypt' }).click()
      await page.getByTestId('worker-ready').waitFor()
    }
    await page.getByTestId('variable-y').waitFor()
    await expect(
      page
        .getByTestId('variable-x')
        .getByRole('img', { name: /^2 to the power 40$/ })
        .count(),
    ).resolves.toBe(1)
    await openPanel(page, 'Functions')
    for (const label of ['Multiply', 'Relinearize']) {
      await page.getByLabel('Operation to add').selectOption({ label })
      await page.getByRole('button', { name: 'Add step' }).click()
    }
    await page.getByRole('button', { name: 'Run all steps' }).click()
    await page.getByTestId('step-2').getByLabel('done').waitFor({ timeout: 60_000 })
    await openPanel(page, 'Server')
    await page.getByRole('button', { name: 'Connect' }).click()
    await page.getByTestId('server-connection').getByText('Ready').waitFor({ timeout: 60_000 })
    await page.getByRole('button', { name: 'Run pipeline on server' }).click()
    await page.getByTestId('remote-run').waitFor({ timeout: 60_000 })

    for (const name of PANEL_NAMES) {
      await openPanel(page, name)
      const names = await buttonNames(page)
      expect(names.length, `${name}: buttons found`).toBeGreaterThan(3)
      expect(
        names.filter((n) => n === ''),
        `${name}: buttons without a name`,
      ).toEqual([])
      const repeated = names.filter((n, i) => names.indexOf(n) !== i)
      expect(repeated, `${name}: button names used more than once`).toEqual([])
    }
    expect(errors).toEqual([])
  })

  test('"Decrypt anyway": the visible label is part of the accessible name (label in name)', async ({
    sandbox: { page, errors },
  }) => {
    await openWorkspaceLink(page, workspaceLink(inject('sandboxUrl'), EXHAUSTED), 5)
    const button = page.getByTestId('step-5').getByRole('button', { name: /anyway/ })
    const shown = ((await button.textContent()) ?? '').trim()
    expect(shown).toBe('Decrypt anyway')
    // The accessible name as Chromium exposes it to assistive technology.
    const snapshot = await button.ariaSnapshot()
    const name = /^- button "(.*)"/.exec(snapshot)?.[1] ?? snapshot
    expect(name).toBe('Decrypt anyway (step 5)')
    // Speech input ("click Decrypt anyway") finds the button only when its name contains what is shown.
    expect(name.startsWith(shown), `"${name}" begins with "${shown}"`).toBe(true)
    // axe's own rule agrees, on this very button.
    const result = await runAxe(page, { runOnly: ['label-content-name-mismatch'] }, '[data-testid="step-5"]')
    expect(result.violations).toEqual([])
    expect(result.passes.map((rule) => rule.id)).toEqual(['label-content-name-mismatch'])
    expect(errors).toEqual([])
  })

  test('offers a skip link to the open panel as the first stop of the keyboard', async ({ sandbox: { page } }) => {
    await openPanel(page, 'Variables')
    // A fresh page: the keyboard starts at the top of the document.
    await page.reload()
    await page.getByTestId('worker-ready').waitFor({ timeout: 60_000 })
    await page.keyboard.press('Tab')
    const skip = page.getByRole('link', { name: 'Skip to the Variables panel' })
    await expect(skip.evaluate((element) => element === document.activeElement)).resolves.toBe(true)
    await page.keyboard.press('Enter')
    await expect(page.evaluate(() => document.activeElement?.getAttribute('data-panel'))).resolves.toBe('variables')
    // The open panel stays open: the link moves focus without changing the URL's panel.
    expect(new URL(page.url()).hash).toBe('#variables')
  })
})

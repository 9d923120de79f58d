import type { Page } from 'playwright-core'
import { expect } from 'vitest'
import { runAxe } from './support/axe.ts'
import { expectNoHorizontalOverflow } from './support/layout.ts'
import { openPanel } from './support/openPanel.ts'
import { test } from './support/sandboxTest.ts'

/*
 * Workspaces in one browser: named, listed with what they hold, reopened at their own
 * address, deleted after a confirmation naming them. A workspace opened "in a new
 * workspace" lived only at its ?workspace= address and nothing listed it.
 */

async function openList(page: Page) {
  await page.getByRole('button', { name: 'Workspaces', exact: true }).click()
  const dialog = page.getByRole('dialog', { name: 'Workspaces in this browser' })
  await dialog.getByTestId('workspace-item').first().waitFor()
  return dialog
}

async function items(page: Page): Promise<string[]> {
  const dialog = page.getByRole('dialog', { name: 'Workspaces in this browser' })
  return (await dialog.getByTestId('workspace-item').locator('.workspace-item-text').allTextContents()).map((text) =>
    text.replace(/\s+/g, ' ').trim(),
  )
}

async function createContext(page: Page, scheme: 'bfv' | 'ckks'): Promise<void> {
  await openPanel(page, 'Parameters')
  await page.getByTestId(`scheme-${scheme}`).check({ force: true })
  await page.getByRole('button', { name: 'Create context' }).click()
  await page.getByTestId('params-in-use').waitFor({ timeout: 60_000 })
  // Saved before the list reads storage.
  await page.getByText('Saved in this browser').waitFor({ timeout: 30_000 })
}

test('names workspaces, lists them with what they hold, reopens and deletes them', async ({
  sandbox: { page, errors },
}) => {
  await createContext(page, 'bfv')
  let dialog = await openList(page)
  await expect(items(page)).resolves.toEqual(['Main workspaceopen hereBFV, n = 4096 · 0 variables · 0 steps'])
  await dialog.getByLabel('Name of this workspace').fill('First lesson')
  await dialog.getByRole('button', { name: 'Rename' }).click()
  await expect.poll(() => items(page)).toEqual(['First lessonopen hereBFV, n = 4096 · 0 variables · 0 steps'])
  const axe = await runAxe(page, {}, 'dialog[open]')
  expect(axe.violations).toEqual([])

  // A new empty workspace: its own address, its own storage.
  await dialog.getByRole('button', { name: 'New empty workspace' }).click()
  await page.waitForURL(/\?workspace=[\w-]+#parameters$/)
  await page.getByTestId('worker-ready').waitFor({ timeout: 60_000 })
  const second = new URL(page.url()).searchParams.get('workspace') ?? ''
  await expect(page.getByTestId('params-in-use').count()).resolves.toBe(0)
  await createContext(page, 'ckks')
  dialog = await openList(page)
  await expect
    .poll(() => items(page))
    .toEqual([
      'First lessonBFV, n = 4096 · 0 variables · 0 steps',
      `Workspace ${second.slice(0, 8)}open hereCKKS, n = 4096 · 0 variables · 0 steps`,
    ])
  await page.setViewportSize({ width: 390, height: 844 })
  await expectNoHorizontalOverflow(page, 'workspaces list at 390 px')
  await page.setViewportSize({ width: 1360, height: 900 })

  // Reopen the first: its address, its context.
  await dialog.getByRole('button', { name: 'Open First lesson' }).click()
  await page.waitForURL((url) => !url.search.includes('workspace='))
  await page.getByTestId('worker-ready').waitFor({ timeout: 60_000 })
  await expect(page.getByTestId('params-in-use').textContent()).resolves.toMatch(/^In use: BFV, n = 4096/)

  // Delete the second, after a confirmation that names it; kept when the answer is no.
  dialog = await openList(page)
  const secondName = `Workspace ${second.slice(0, 8)}`
  await dialog.getByRole('button', { name: `Delete ${secondName}` }).click()
  const confirm = dialog.getByRole('region', { name: `Delete ${secondName}?` })
  await expect(confirm.textContent()).resolves.toMatch(/its secret key too/)
  await confirm.getByRole('button', { name: 'Keep it' }).click()
  await expect(items(page)).resolves.toHaveLength(2)
  await dialog.getByRole('button', { name: `Delete ${secondName}` }).click()
  await confirm.getByRole('button', { name: 'Delete it for good' }).click()
  await expect.poll(() => items(page)).toEqual(['First lessonopen hereBFV, n = 4096 · 0 variables · 0 steps'])
  await dialog.getByRole('button', { name: 'Close the list' }).click()

  // Its address now opens an empty workspace: nothing of it was left behind.
  await page.goto(`${new URL(page.url()).origin}/?workspace=${second}#parameters`)
  await page.getByTestId('worker-ready').waitFor({ timeout: 60_000 })
  await expect(page.getByTestId('params-in-use').count()).resolves.toBe(0)
  expect(errors).toEqual([])
})

import type { WorkspaceInput } from '@sealbox/he-core'
import type { Page } from 'playwright-core'
import { expect, inject } from 'vitest'
import { openPanel } from './support/openPanel.ts'
import { test } from './support/sandboxTest.ts'
import { openWorkspaceLink, workspaceLink } from './support/workspaceLink.ts'

/*
 * Shared links pasted into a tab that already holds a workspace: opened at once when
 * there is nothing to lose, otherwise never without the user's choice, and never
 * dropping a secret key without a confirmation that names it.
 */

function linkWorkspace(name: string, values: number[]): WorkspaceInput {
  return {
    version: 1,
    params: { scheme: 'bfv', polyModulusDegree: 4096 },
    variables: [{ name, kind: 'ciphertext', values }],
    steps: [{ op: 'add', a: name, b: name, out: `${name}2` }],
    print: [`${name}2`],
  }
}

const FIRST = linkWorkspace('alpha', [1, 2, 3])

/** The button that opens a link over FIRST's workspace: it names what goes, the secret key first. */
function openHere(keySet: string): string {
  return `Open the link here (replaces the secret key of key set ${keySet}, 1 other key, 2 ciphertexts and a pipeline of 1 step)`
}
const SECOND = linkWorkspace('beta', [7, 8, 9])

/** The key set the Keys panel names ("key set 1a2b3c4d"). */
async function keySet(page: Page): Promise<string> {
  await openPanel(page, 'Keys')
  const text = (await page.getByText(/^key set [0-9a-f]{8}$/).textContent()) ?? ''
  return text.replace('key set ', '')
}

/** The workspace's variable names, from the Variables panel. */
async function variableNames(page: Page): Promise<string[]> {
  await openPanel(page, 'Variables')
  const rows = page.locator('[data-testid^="variable-"]')
  return (await rows.evaluateAll((elements) => elements.map((e) => e.getAttribute('data-testid') ?? ''))).map((id) =>
    id.replace('variable-', ''),
  )
}

test('opens a pasted link at once when the workspace holds no keys or results', async ({
  sandbox: { page, errors },
}) => {
  const url = inject('sandboxUrl')
  await openWorkspaceLink(page, workspaceLink(url, FIRST), 1)
  await page.getByText(/^Opened a shared workspace/).waitFor()
  expect(new URL(page.url()).hash).toBe('#functions')
  await expect(variableNames(page)).resolves.toEqual(['alpha', 'alpha2'])
  expect(errors).toEqual([])
})

test('asks before a pasted link replaces keys; offers the secret key first; Cancel (and a reload) keep everything', async ({
  sandbox: { page, errors },
}) => {
  const url = inject('sandboxUrl')
  await openWorkspaceLink(page, workspaceLink(url, FIRST), 1)
  const before = await keySet(page)

  // Pasting another link into the address bar is a hashchange: it is noticed at once.
  await page.goto(workspaceLink(url, SECOND))
  const prompt = page.getByRole('alertdialog', { name: 'Open the shared workspace?' })
  await prompt.waitFor()
  expect(new URL(page.url()).hash).toBe('#functions')
  await expect(prompt.getByTestId('shared-link-loss').textContent()).resolves.toMatch(
    new RegExp(
      `replaces this workspace: the secret key of key set ${before}, 1 other key, 2 ciphertexts \\(alpha, alpha2\\) and a pipeline of 1 step\\.`,
    ),
  )
  // The secret key can leave first, as a key file.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    prompt.getByRole('button', { name: 'Download the secret key first' }).click(),
  ])
  // Named with the key set's id, as the Keys panel shows it.
  expect(download.suggestedFilename()).toMatch(/^secretKey\.[0-9a-f]{8}\.bfv-4096\.sbx$/)
  await prompt.getByRole('button', { name: 'Secret key downloaded' }).waitFor()
  // The destructive choice names the key it drops.
  await prompt.getByRole('button', { name: openHere(before) }).waitFor()
  await prompt.getByRole('button', { name: 'Cancel' }).click()
  await expect(prompt.count()).resolves.toBe(0)
  await expect(keySet(page)).resolves.toBe(before)
  await expect(variableNames(page)).resolves.toEqual(['alpha', 'alpha2'])

  // The link left the address bar: a reload neither asks nor replaces anything.
  await page.reload()
  await page.getByTestId('worker-ready').waitFor({ timeout: 60_000 })
  await expect(keySet(page)).resolves.toBe(before)
  await expect(variableNames(page)).resolves.toEqual(['alpha', 'alpha2'])
  await expect(page.getByRole('alertdialog').count()).resolves.toBe(0)
  expect(errors).toEqual([])
})

test('a link opened as a whole page over a saved workspace names the ciphertexts and the key it would replace', async ({
  sandbox: { page, errors },
}) => {
  const url = inject('sandboxUrl')
  await openWorkspaceLink(page, workspaceLink(url, FIRST), 1)
  const before = await keySet(page)
  // Saved (IndexedDB) before the page goes: the next page load restores it.
  await page.locator('.save-state.save-saved').waitFor()

  // A new page of the same browser (same storage) loads with the link: a full page load, not a hashchange.
  const other = await page.context().newPage()
  await other.goto(workspaceLink(url, SECOND))
  const prompt = other.getByRole('alertdialog', { name: 'Open the shared workspace?' })
  await prompt.waitFor({ timeout: 60_000 })
  await expect(prompt.getByTestId('shared-link-loss').textContent()).resolves.toBe(
    `Opening it here replaces this workspace: the secret key of key set ${before}, 1 other key, 2 ciphertexts (alpha, alpha2) and a pipeline of 1 step. Whatever was encrypted under this secret key can no longer be decrypted, here or anywhere, unless you download the key first.`,
  )
  await prompt.getByRole('button', { name: openHere(before) }).waitFor()
  await prompt.getByRole('button', { name: 'Cancel' }).click()
  await expect(variableNames(other)).resolves.toEqual(['alpha', 'alpha2'])
  await other.close()
  expect(errors).toEqual([])
})

test('opens the link in a new workspace (its own tab and storage) or, when confirmed, here', async ({
  sandbox: { page, errors },
}) => {
  const url = inject('sandboxUrl')
  await openWorkspaceLink(page, workspaceLink(url, FIRST), 1)
  const before = await keySet(page)
  const prompt = page.getByRole('alertdialog', { name: 'Open the shared workspace?' })

  await page.goto(workspaceLink(url, SECOND))
  const [other] = await Promise.all([
    page.context().waitForEvent('page'),
    prompt.getByRole('button', { name: 'Open in a new workspace' }).click(),
  ])
  await other.getByText(/^Opened a shared workspace/).waitFor({ timeout: 120_000 })
  expect(new URL(other.url()).searchParams.get('workspace')).toMatch(/^[\w-]+$/)
  await expect(variableNames(other)).resolves.toEqual(['beta', 'beta2'])
  // This tab and its storage are untouched, across a reload too.
  await expect(keySet(page)).resolves.toBe(before)
  await page.reload()
  await page.getByTestId('worker-ready').waitFor({ timeout: 60_000 })
  await expect(keySet(page)).resolves.toBe(before)
  await expect(variableNames(page)).resolves.toEqual(['alpha', 'alpha2'])
  // And the new workspace keeps its own across a reload.
  await other.reload()
  await other.getByTestId('worker-ready').waitFor({ timeout: 60_000 })
  await expect(variableNames(other)).resolves.toEqual(['beta', 'beta2'])
  await other.close()

  // Confirmed, the link replaces this workspace: new keys, its variables.
  await page.goto(workspaceLink(url, SECOND))
  await prompt.getByRole('button', { name: openHere(before) }).click()
  await page.getByText(/^Opened a shared workspace/).waitFor({ timeout: 120_000 })
  await expect(variableNames(page)).resolves.toEqual(['beta', 'beta2'])
  await expect(keySet(page)).resolves.not.toBe(before)
  expect(errors).toEqual([])
})

test('copies a link to a context alone (no values yet); another browser opens it as that context with fresh keys', async ({
  sandbox: { page, errors },
  newPage,
}) => {
  await page.getByTestId('scheme-bgv').check({ force: true })
  await page.getByTestId('polyModulusDegree-4096').check({ force: true })
  await page.getByRole('button', { name: 'Create context' }).click()
  await page.getByTestId('next-step').waitFor({ timeout: 60_000 })
  await page.getByRole('button', { name: 'Copy link' }).click()
  const dialog = page.getByRole('dialog', { name: 'Link to this workspace' })
  await expect(dialog.textContent()).resolves.toMatch(/no values or steps yet/)
  await expect(dialog.textContent()).resolves.not.toMatch(/Choose at least one value/)
  const link = await dialog.getByLabel('Workspace link').inputValue()
  await dialog.getByRole('button', { name: 'Close' }).click()

  const other = await newPage()
  const otherErrors: string[] = []
  other.on('pageerror', (error) => otherErrors.push(String(error)))
  await other.goto(link)
  await other.getByText(/^Opened a shared workspace: its parameters/).waitFor({ timeout: 120_000 })
  await expect(other.getByTestId('params-in-use').textContent()).resolves.toMatch(/^In use: BGV, n = 4096/)
  await openPanel(other, 'Keys')
  await other.getByTestId('key-secretKey').getByText('ready').waitFor()
  await other.getByTestId('key-publicKey').getByText('ready').waitFor()
  expect(otherErrors).toEqual([])
  expect(errors).toEqual([])
})

import type { WorkspaceInput } from '@sealbox/he-core'
import type { Page } from 'playwright-core'
import { expect, inject } from 'vitest'
import { openPanel } from './support/openPanel.ts'
import { test } from './support/sandboxTest.ts'
import { openWorkspaceLink, workspaceLink } from './support/workspaceLink.ts'

/*
 * Every way to replace a workspace that holds a secret key — an example, Start over, new
 * parameters, a new secret key on the Keys panel — asks first, names the key it drops and what else goes, and offers the key
 * file before anything is lost. Each test builds its own workspace.
 */

const WORKSPACE: WorkspaceInput = {
  version: 1,
  params: { scheme: 'bfv', polyModulusDegree: 4096 },
  variables: [{ name: 'alpha', kind: 'ciphertext', values: [1, 2, 3] }],
  steps: [{ op: 'add', a: 'alpha', b: 'alpha', out: 'alpha2' }],
  print: ['alpha2'],
}

/** Opens WORKSPACE (keys made fresh) and returns its key set as the Keys panel names it. */
async function workspaceWithKeys(page: Page): Promise<string> {
  await openWorkspaceLink(page, workspaceLink(inject('sandboxUrl'), WORKSPACE), 1)
  await openPanel(page, 'Keys')
  const text = (await page.getByText(/^key set [0-9a-f]{8}$/).textContent()) ?? ''
  return text.replace('key set ', '')
}

async function variableNames(page: Page): Promise<string[]> {
  await openPanel(page, 'Variables')
  const rows = page.locator('[data-testid^="variable-"]')
  return (await rows.evaluateAll((elements) => elements.map((e) => e.getAttribute('data-testid') ?? ''))).map((id) =>
    id.replace('variable-', ''),
  )
}

/** Whether `inner`'s box lies inside `outer`'s (a long button label wraps instead of running out). */
async function inside(inner: ReturnType<Page['getByRole']>, outer: ReturnType<Page['getByRole']>): Promise<boolean> {
  const [a, b] = await Promise.all([inner.boundingBox(), outer.boundingBox()])
  return a !== null && b !== null && a.x >= b.x - 0.5 && a.x + a.width <= b.x + b.width + 0.5
}

/** Clicks `button` (the secret key's download) and returns the file's name. */
async function downloaded(page: Page, button: ReturnType<Page['getByRole']>): Promise<string> {
  const [download] = await Promise.all([page.waitForEvent('download'), button.click()])
  return download.suggestedFilename()
}

test('Examples → Load over a secret key asks, names the key and the ciphertexts, offers the key; keeping changes nothing', async ({
  sandbox: { page, errors },
}) => {
  const keySet = await workspaceWithKeys(page)
  await page.getByRole('button', { name: 'Examples' }).click()
  const examples = page.getByRole('dialog', { name: 'Start from an example' })
  await examples.getByRole('button', { name: 'Load the BFV, n = 4096 example' }).click()
  const confirm = examples.getByRole('region', { name: 'Replace this workspace?' })
  await expect(confirm.textContent()).resolves.toMatch(
    new RegExp(
      `replaces this workspace: the secret key of key set ${keySet}, 1 other key, 2 ciphertexts \\(alpha, alpha2\\) and a pipeline of 1 step\\. Whatever was encrypted under this secret key`,
    ),
  )
  await expect(downloaded(page, confirm.getByRole('button', { name: 'Download the secret key first' }))).resolves.toBe(
    `secretKey.${keySet}.bfv-4096.sbx`,
  )
  await confirm.getByRole('button', { name: 'Secret key downloaded' }).waitFor()
  const load = confirm.getByRole('button', {
    name: `Load the example (replaces the secret key of key set ${keySet}, 1 other key, 2 ciphertexts and a pipeline of 1 step)`,
  })
  await load.waitFor()
  await expect(inside(load, confirm)).resolves.toBe(true)
  await confirm.getByRole('button', { name: 'Keep this workspace' }).click()
  await examples.getByRole('button', { name: 'Close' }).click()
  await expect(variableNames(page)).resolves.toEqual(['alpha', 'alpha2'])

  // Confirmed, the example replaces it.
  await page.getByRole('button', { name: 'Examples' }).click()
  await examples.getByRole('button', { name: 'Load the BFV, n = 4096 example' }).click()
  await load.click()
  await expect.poll(() => variableNames(page), { timeout: 120_000 }).toContain('xyRelin')
  expect(errors).toEqual([])
})

test('Start over names the secret key and the ciphertexts it removes and offers the key first', async ({
  sandbox: { page, errors },
}) => {
  const keySet = await workspaceWithKeys(page)
  await page.getByRole('button', { name: 'Start over' }).click()
  const dialog = page.getByRole('dialog', { name: 'Start over?' })
  await expect(dialog.getByTestId('reset-loss').textContent()).resolves.toMatch(
    new RegExp(
      `^Starting over removes: the secret key of key set ${keySet}, 1 other key, 2 ciphertexts \\(alpha, alpha2\\)`,
    ),
  )
  await expect(downloaded(page, dialog.getByRole('button', { name: 'Download the secret key first' }))).resolves.toBe(
    `secretKey.${keySet}.bfv-4096.sbx`,
  )
  await dialog
    .getByRole('button', {
      name: `Remove everything (including the secret key of key set ${keySet}, 1 other key, 2 ciphertexts and a pipeline of 1 step)`,
    })
    .click()
  await page.getByTestId('worker-ready').waitFor({ timeout: 60_000 })
  await expect(variableNames(page)).resolves.toEqual([])
  expect(errors).toEqual([])
})

test('new parameters name the secret key and the values they discard and offer the key first; the pipeline stays', async ({
  sandbox: { page, errors },
}) => {
  const keySet = await workspaceWithKeys(page)
  await openPanel(page, 'Parameters')
  await page.getByTestId('polyModulusDegree-8192').check({ force: true })
  await page.getByRole('button', { name: 'Use these parameters' }).click()
  const confirm = page.getByRole('alertdialog', { name: 'Discard keys and variables?' })
  await expect(confirm.getByTestId('params-loss').textContent()).resolves.toMatch(
    new RegExp(
      `^New parameters discard: the secret key of key set ${keySet}, 1 other key and 2 ciphertexts \\(alpha, alpha2\\)\\.`,
    ),
  )
  await expect(downloaded(page, confirm.getByRole('button', { name: 'Download the secret key first' }))).resolves.toBe(
    `secretKey.${keySet}.bfv-4096.sbx`,
  )
  await confirm
    .getByRole('button', {
      name: `Discard and use new parameters (drops the secret key of key set ${keySet}, 1 other key and 2 ciphertexts)`,
    })
    .click()
  await expect.poll(() => page.getByTestId('params-in-use').textContent(), { timeout: 60_000 }).toMatch(/n = 8192/)
  await expect(variableNames(page)).resolves.toEqual([])
  expect(errors).toEqual([])
})

test('"Make a new one" on Keys names the secret key and the ciphertexts it drops and offers the key first; keeping changes nothing', async ({
  sandbox: { page, errors },
}) => {
  const keySet = await workspaceWithKeys(page)
  await page.getByText('Make a new one').click()
  await page.getByRole('button', { name: 'Generate keys' }).click()
  const confirm = page.getByRole('alertdialog', { name: 'Replace the secret key?' })
  await expect(confirm.getByTestId('new-secret-key-loss').textContent()).resolves.toMatch(
    new RegExp(
      `^A new secret key removes: the secret key of key set ${keySet}, 1 other key and 2 ciphertexts \\(alpha, alpha2\\)\\. Whatever was encrypted under this secret key`,
    ),
  )
  await expect(downloaded(page, confirm.getByRole('button', { name: 'Download the secret key first' }))).resolves.toBe(
    `secretKey.${keySet}.bfv-4096.sbx`,
  )
  await confirm.getByRole('button', { name: 'Secret key downloaded' }).waitFor()
  const replace = confirm.getByRole('button', {
    name: `Make a new secret key (drops the secret key of key set ${keySet}, 1 other key and 2 ciphertexts)`,
  })
  await replace.waitFor()
  await expect(inside(replace, confirm)).resolves.toBe(true)

  // Kept: the same key set, the same ciphertexts.
  await confirm.getByRole('button', { name: 'Keep the current secret key' }).click()
  await expect(confirm.count()).resolves.toBe(0)
  await expect(page.getByText(`key set ${keySet}`, { exact: true }).count()).resolves.toBe(1)
  await expect(variableNames(page)).resolves.toEqual(['alpha', 'alpha2'])

  // Confirmed: a new key set, and the ciphertexts of the old one are gone.
  await openPanel(page, 'Keys')
  await page.getByText('Make a new one').click()
  await page.getByRole('button', { name: 'Generate keys' }).click()
  await replace.click()
  await expect
    .poll(() => page.getByText(/^key set [0-9a-f]{8}$/).textContent(), { timeout: 60_000 })
    .not.toBe(`key set ${keySet}`)
  await expect(variableNames(page)).resolves.toEqual([])
  expect(errors).toEqual([])
})

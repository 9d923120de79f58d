import type { Page } from 'playwright-core'
import { expect, inject } from 'vitest'
import { exhaustedWorkspace } from './support/exhaustedWorkspace.ts'
import { addVariables, createContextWithKeys } from './support/keyedContext.ts'
import { openPanel } from './support/openPanel.ts'
import { test } from './support/sandboxTest.ts'
import { openWorkspaceLink, workspaceLink } from './support/workspaceLink.ts'

/*
 * Small things a new user trips on: the way on from Keys to Variables, where the keyboard
 * lands after a "Go to … →" link, where an example opens, and CKKS values too large to
 * come back right.
 */

/** What has the keyboard focus: a panel by its data-panel, else the element's tag. */
function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const element = document.activeElement
    const panel = element?.getAttribute('data-panel')
    return panel ? `panel:${panel}` : (element?.tagName.toLowerCase() ?? '')
  })
}

test('"Go to Keys →" and "Go to Variables →" lead on, and the keyboard lands on the panel they open', async ({
  sandbox: { page, errors },
}) => {
  await page.getByRole('button', { name: 'Create context' }).click()
  const toKeys = page.getByRole('link', { name: 'Go to Keys →' })
  await toKeys.waitFor({ timeout: 60_000 })
  await toKeys.focus()
  await page.keyboard.press('Enter')
  await page.locator('[data-panel="keys"]').waitFor()
  await expect.poll(() => focused(page)).toBe('panel:keys')

  // No way on from Keys until keys exist; then one, the same way.
  await expect(page.getByTestId('keys-next-step').count()).resolves.toBe(0)
  await page.getByRole('button', { name: 'Generate keys' }).click()
  const toVariables = page.getByRole('link', { name: 'Go to Variables →' })
  await toVariables.waitFor({ timeout: 60_000 })
  await toVariables.focus()
  await page.keyboard.press('Enter')
  await page.locator('[data-panel="variables"]').waitFor()
  await expect.poll(() => focused(page)).toBe('panel:variables')
  // Tab goes on inside the panel, to its first control.
  await page.keyboard.press('Tab')
  await expect(
    page.evaluate(() => document.querySelector('[data-panel="variables"]')?.contains(document.activeElement)),
  ).resolves.toBe(true)

  // Once something is encrypted, the way on is no longer offered.
  await page.getByLabel('Values').fill('1, 2, 3')
  await page.getByRole('button', { name: 'Encode and encrypt', exact: true }).click()
  await page.getByTestId('variable-x').waitFor({ timeout: 60_000 })
  await openPanel(page, 'Keys')
  await expect(page.getByTestId('keys-next-step').count()).resolves.toBe(0)
  expect(errors).toEqual([])
})

test('an example opens on Functions, where its steps run', async ({ sandbox: { page, errors } }) => {
  await page.getByRole('button', { name: 'Examples' }).click()
  await page.getByRole('button', { name: 'Load the BFV, n = 4096 example' }).click()
  await page.locator('[data-panel="functions"]').waitFor()
  expect(new URL(page.url()).hash).toBe('#functions')
  await page.getByTestId('step-1').getByTestId('step-result').getByLabel('done').waitFor({ timeout: 120_000 })
  expect(errors).toEqual([])
})

test('CKKS refuses a value too large to decrypt right after rescaling (1e15), naming the limit', async ({
  sandbox: { page, errors },
}) => {
  await createContextWithKeys(page, { scheme: 'ckks', polyModulusDegree: 8192 })
  await openPanel(page, 'Variables')
  const values = page.getByLabel('Values')
  await values.fill('1.5, 1e15')
  const form = page.locator('[data-panel="variables"]')
  await expect
    .poll(() => form.getByRole('alert').first().textContent())
    .toMatch(
      /^Value 2 \(1e15\) is too large: with a \d+-bit first prime and a scale of 2\^\d+, CKKS values must lie strictly between −\d+ and \d+/,
    )
  await expect(values.getAttribute('aria-invalid')).resolves.toBe('true')
  await expect(page.getByRole('button', { name: 'Encode and encrypt', exact: true }).isDisabled()).resolves.toBe(true)
  // Within the limit, it encrypts and decrypts to what was typed.
  await values.fill('1.5, 1000')
  await page.getByRole('button', { name: 'Encode and encrypt', exact: true }).click()
  await page.getByTestId('variable-x').waitFor({ timeout: 60_000 })
  await expect(page.getByTestId('variable-x').textContent()).resolves.toMatch(/\[1\.5, 1000(\.0+)?, 0/)
  expect(errors).toEqual([])
})

test('the Code panel promises no old results once a step has changed since it ran', async ({
  sandbox: { page, errors },
}) => {
  await createContextWithKeys(page)
  await addVariables(page, [
    ['x', '1, 2, 3'],
    ['y', '4, 5, 6'],
  ])
  await openPanel(page, 'Functions')
  await page.getByLabel('Operation to add').selectOption({ label: 'Multiply' })
  await page.getByRole('button', { name: 'Add step' }).click()
  await page.getByRole('button', { name: 'Run all steps' }).click()
  await page.getByTestId('step-1').getByTestId('step-result').getByLabel('done').waitFor({ timeout: 60_000 })
  await openPanel(page, 'Code')
  await expect(page.getByTestId('expected-output').textContent()).resolves.toBe('r1 = [4, 10, 18, 0, 0, 0, 0, 0, ...]')

  // Multiply becomes Add: the product at hand is no longer what the program prints.
  await openPanel(page, 'Functions')
  await page.getByLabel('Step 1 operation').selectOption({ label: 'Add' })
  await openPanel(page, 'Code')
  await expect(page.getByTestId('expected-output').count()).resolves.toBe(0)
  await page.getByText('Run the pipeline (Functions) to see here what the program will print.').waitFor()

  // A step that no longer makes a program: "No program yet", and still no old results beside it.
  await openPanel(page, 'Functions')
  await page.getByLabel('Step 1 result name').fill('')
  await openPanel(page, 'Code')
  await page.getByText('No program yet').waitFor()
  await expect(page.getByTestId('expected-output').count()).resolves.toBe(0)

  // Run again: the promise is back, for the sum.
  await openPanel(page, 'Functions')
  await page.getByLabel('Step 1 result name').fill('s')
  await page.getByRole('button', { name: 'Run all steps' }).click()
  await page.getByTestId('step-1').getByTestId('step-result').getByLabel('done').waitFor({ timeout: 60_000 })
  await openPanel(page, 'Code')
  await expect(page.getByTestId('expected-output').textContent()).resolves.toBe('s = [5, 7, 9, 0, 0, 0, 0, 0, ...]')
  expect(errors).toEqual([])
})

test('after "Decrypt anyway" and "Remove step" the keyboard stays in the pipeline, not on <body>', async ({
  sandbox: { page, errors },
}) => {
  await openWorkspaceLink(page, workspaceLink(inject('sandboxUrl'), exhaustedWorkspace()), 5)
  const anyway = page.getByRole('button', { name: 'Decrypt anyway (step 5)' })
  await anyway.focus()
  await page.keyboard.press('Enter')
  await page.getByTestId('step-5').getByTestId('garbage').waitFor({ timeout: 60_000 })
  await expect
    .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
    .toBe('Garbage of step 5')

  // The first step removed: the card now first takes the focus; the last removed: the step menu.
  await page.getByRole('button', { name: 'Remove step 1' }).focus()
  await page.keyboard.press('Enter')
  await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Remove step 1')
  await expect(page.getByTestId('step-5').count()).resolves.toBe(0)
  await page.getByRole('button', { name: 'Remove step 4' }).focus()
  await page.keyboard.press('Enter')
  await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('add-step-op')
  expect(errors).toEqual([])
})

import type { Page } from 'playwright-core'
import { expect } from 'vitest'
import { openPanel } from './support/openPanel.ts'
import { test } from './support/sandboxTest.ts'

/*
 * The Keys form's Galois steps follow the pipeline: a pipeline that rotates by 5 is
 * proposed a key for 5 (it was ±1, and SEAL cannot compose 5 from ±1 keys), until the
 * learner types steps of their own, with a way back to the pipeline's.
 */

async function encryptX(page: Page): Promise<void> {
  await openPanel(page, 'Variables')
  await page.getByLabel('Name', { exact: true }).fill('x')
  await page.getByLabel('Values').fill('1, 2, 3, 4, 5, 6, 7, 8')
  await page.getByRole('button', { name: 'Encode and encrypt', exact: true }).click()
  await page.getByTestId('variable-x').waitFor({ timeout: 60_000 })
}

test('proposes the rotation steps the pipeline needs, and those keys run it', async ({ sandbox: { page, errors } }) => {
  await page.getByRole('button', { name: 'Create context' }).click()
  await page.getByTestId('params-in-use').waitFor({ timeout: 60_000 })
  await openPanel(page, 'Keys')
  const steps = page.locator('#galois-steps')
  // No pipeline yet: one slot either way.
  await expect(steps.inputValue()).resolves.toBe('1, -1')
  await page.getByRole('button', { name: 'Generate keys' }).click()
  await page.getByTestId('key-galoisKeys').getByText('ready').waitFor({ timeout: 60_000 })
  await encryptX(page)

  await openPanel(page, 'Functions')
  await page.getByLabel('Operation to add').selectOption({ label: 'Rotate rows' })
  await page.getByRole('button', { name: 'Add step' }).click()
  await page.getByLabel('Step 1 rotation steps').fill('5')
  await expect.poll(() => page.getByTestId('pipeline-needs').textContent()).toMatch(/Galois keys for rotation by 5/)

  await openPanel(page, 'Keys')
  await expect(steps.inputValue()).resolves.toBe('5')
  await expect(page.getByTestId('galois-proposal').textContent()).resolves.toBe("The pipeline's rotations: 5.")
  // Typed steps are the learner's own; one click goes back to the pipeline's.
  await steps.fill('2')
  await expect(page.getByTestId('galois-proposal').textContent()).resolves.toMatch(/^The pipeline rotates by 5: /)
  await page.getByRole('button', { name: "Use the pipeline's steps" }).click()
  await expect(steps.inputValue()).resolves.toBe('5')

  // New Galois keys for 5 (the secret key kept), and the rotation runs with them.
  await page.getByRole('button', { name: 'Generate keys' }).click()
  await expect
    .poll(() => page.getByTestId('key-galoisKeys').textContent(), { timeout: 60_000 })
    .toMatch(/steps 5(?!\d)/)
  await openPanel(page, 'Functions')
  await page.getByRole('button', { name: 'Run all steps' }).click()
  const result = page.getByTestId('step-1').getByTestId('step-result')
  await result.getByLabel('done').waitFor({ timeout: 60_000 })
  await expect(result.textContent()).resolves.toContain('[6, 7, 8, 0, 0, 0, 0, 0')
  expect(errors).toEqual([])
})

import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { expect } from 'vitest'
import { saveIssueShot } from './support/issueShots.ts'
import { openPanel } from './support/openPanel.ts'
import { test } from './support/sandboxTest.ts'

/*
 * Uploading the secret key in use keeps the relinearization and Galois keys made from it
 * (issue 29, major 2): the issue's exact steps, in the page.
 */

async function addStep(page: Page, label: string): Promise<void> {
  await page.getByLabel('Operation to add').selectOption({ label })
  await page.getByRole('button', { name: 'Add step' }).click()
}

test('download the secret key, upload it again, then square, relinearize, rotate: Run all succeeds', async ({
  sandbox: { page, errors },
}) => {
  await page.getByText('Custom bit sizes').click()
  await page.getByLabel('Prime bit sizes').fill('36, 36, 37')
  await page.getByRole('button', { name: 'Create context' }).click()
  await page.getByTestId('params-in-use').waitFor({ timeout: 60_000 })

  await openPanel(page, 'Keys')
  await page.getByRole('button', { name: 'Generate keys' }).click()
  await page.getByTestId('key-galoisKeys').getByText('ready').waitFor({ timeout: 60_000 })
  const dir = await mkdtemp(join(tmpdir(), 'sealbox-sk-'))
  try {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download secret key' }).click(),
    ])
    const file = join(dir, download.suggestedFilename())
    await download.saveAs(file)
    await page.getByTestId('upload-secretKey').setInputFiles(file)
    await page
      .getByTestId('key-secretKey')
      .getByText(/uploaded/)
      .waitFor({ timeout: 60_000 })
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
  // The evaluation keys made from this secret key are still there, and still ready.
  await page.getByTestId('key-relinKeys').getByText('ready').waitFor()
  await page.getByTestId('key-galoisKeys').getByText('ready').waitFor()

  await openPanel(page, 'Variables')
  await page.getByLabel('Values').fill('1, 2, 3, 4')
  await page.getByRole('button', { name: 'Encode and encrypt' }).click()
  await page.getByTestId('variable-x').waitFor({ timeout: 60_000 })

  await openPanel(page, 'Functions')
  await addStep(page, 'Square')
  await addStep(page, 'Relinearize')
  await addStep(page, 'Rotate rows')
  await page.getByRole('button', { name: 'Run all steps' }).click()
  const done = page.getByTestId('step-3').getByTestId('step-result').getByText('✓')
  const stopped = page.locator('.step-card [data-error-code]')
  await Promise.race([done.waitFor({ timeout: 120_000 }), stopped.first().waitFor({ timeout: 120_000 })])
  await saveIssueShot(page, 'major2-run-after-upload')
  await expect(stopped.allTextContents()).resolves.toEqual([])
  // x² rotated by one: [4, 9, 16, 0, …] (row rotation left by 1 of [1, 4, 9, 16, 0, …]).
  await expect(page.getByTestId('step-3').getByTestId('step-result').textContent()).resolves.toMatch(/4, 9, 16/)
  expect(errors).toEqual([])
}, 300_000)

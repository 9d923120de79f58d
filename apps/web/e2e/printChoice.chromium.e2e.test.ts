import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { inflateRawSync } from 'node:zlib'
import type { Page } from 'playwright-core'
import { expect, inject } from 'vitest'
import { WEB_ROOT } from './support/buildApp.ts'
import { exhaustedWorkspace } from './support/exhaustedWorkspace.ts'
import { addVariables, createContextWithKeys, inTempDir } from './support/keyedContext.ts'
import { openPanel } from './support/openPanel.ts'
import { test } from './support/sandboxTest.ts'
import { openWorkspaceLink, workspaceLink } from './support/workspaceLink.ts'

/*
 * The Code panel's Print ticks: unticking the exhausted result (step 5) and ticking the
 * one before it makes a program that skips step 5 and prints, exit code 0 (it ran step 5
 * anyway, printed nothing and exited 1); the ticks are saved with the workspace and
 * survive a reload and a change to the pipeline.
 */

const run = promisify(execFile)

function printBox(page: Page, name: string) {
  return page
    .locator('.print-choices label')
    .filter({ hasText: new RegExp(`^${name}$`) })
    .locator('input')
}

test('unticking an exhausted result skips its step in the exported program; the ticks are saved', async ({
  sandbox: { page, errors },
}) => {
  await openWorkspaceLink(page, workspaceLink(inject('sandboxUrl'), exhaustedWorkspace([1, 2, 3])), 5)
  await openPanel(page, 'Code')
  await expect(page.getByTestId('program-stops').count()).resolves.toBe(1)
  await printBox(page, 'r5').uncheck()
  await printBox(page, 'r4').check()
  // r4 = (x²)·x = x³, relinearized: the program stops no more.
  await expect.poll(() => page.getByTestId('expected-output').textContent()).toBe('r4 = [1, 8, 27, 0, 0, 0, 0, 0, ...]')
  await expect(page.getByTestId('program-stops').count()).resolves.toBe(0)
  await expect(page.getByTestId('generated-code').textContent()).resolves.not.toMatch(/r5/)

  await inTempDir(
    async (dir) => {
      const downloading = page.waitForEvent('download')
      await page.getByRole('button', { name: /^Download sealbox-workspace/ }).click()
      const download = await downloading
      const program = join(dir, download.suggestedFilename())
      await download.saveAs(program)
      const env = { ...process.env }
      delete env.NODE_OPTIONS
      // Exits 0 (execFile rejects otherwise) and prints what the panel promised.
      const { stdout } = await run(process.execPath, [program], { cwd: dir, env, timeout: 180_000 })
      expect(stdout.trim()).toBe('r4 = [1, 8, 27, 0, 0, 0, 0, 0, ...]')
    },
    { parent: WEB_ROOT, prefix: '.e2e-tmp-' },
  )

  // Saved with the workspace: the same ticks after a reload…
  await page.getByText('Saved in this browser').waitFor({ timeout: 30_000 })
  await page.reload()
  await page.getByTestId('worker-ready').waitFor({ timeout: 60_000 })
  await page.locator('[data-panel="code"]').waitFor()
  await expect(printBox(page, 'r4').isChecked()).resolves.toBe(true)
  await expect(printBox(page, 'r5').isChecked()).resolves.toBe(false)
  // …and after a change to the pipeline.
  await openPanel(page, 'Functions')
  await page.getByLabel('Operation to add').selectOption({ label: 'Negate' })
  await page.getByRole('button', { name: 'Add step' }).click()
  await openPanel(page, 'Code')
  await expect(printBox(page, 'r4').isChecked()).resolves.toBe(true)
  await expect(printBox(page, 'r5').isChecked()).resolves.toBe(false)
  expect(errors).toEqual([])
})

test('a shared link keeps every typed value and the Print ticks, as its dialog promises', async ({
  sandbox: { page, errors },
  newPage,
}) => {
  await createContextWithKeys(page)
  await addVariables(page, [
    ['x', '1, 2, 3'],
    ['y', '4, 5, 6'],
    ['p', '7, 8, 9', 'plaintext'],
  ])
  await openPanel(page, 'Functions')
  await page.getByLabel('Operation to add').selectOption({ label: 'Multiply' })
  await page.getByRole('button', { name: 'Add step' }).click()
  await page.getByRole('button', { name: 'Run all steps' }).click()
  await page.getByTestId('step-1').getByTestId('step-result').getByLabel('done').waitFor({ timeout: 60_000 })
  await openPanel(page, 'Code')
  await printBox(page, 'x').check()

  await page.getByRole('button', { name: 'Copy link' }).click()
  const link = await page.getByLabel('Workspace link').inputValue()
  const json = inflateRawSync(Buffer.from(new URL(link).hash.replace(/^#code&w=/, ''), 'base64url')).toString()
  const spec = JSON.parse(json) as { variables: Array<{ name: string }>; print: string[] }
  // p is read by no step: it travels all the same ("the numbers you typed").
  expect(spec.variables.map((v) => v.name)).toEqual(['x', 'y', 'p'])
  expect(spec.print).toEqual(['r1', 'x'])

  const other = await newPage()
  await other.goto(link)
  await other.getByText(/Opened a shared workspace/).waitFor({ timeout: 120_000 })
  await other.locator('[data-panel="code"]').waitFor()
  await expect(printBox(other, 'x').isChecked()).resolves.toBe(true)
  await expect(printBox(other, 'r1').isChecked()).resolves.toBe(true)
  await expect(printBox(other, 'y').isChecked()).resolves.toBe(false)
  await expect(other.getByTestId('expected-output').textContent()).resolves.toBe(
    'r1 = [4, 10, 18, 0, 0, 0, 0, 0, ...]\nx = [1, 2, 3, 0, 0, 0, 0, 0, ...]',
  )
  await openPanel(other, 'Variables')
  await other.getByTestId('variable-p').waitFor()
  expect(errors).toEqual([])
})

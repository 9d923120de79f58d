import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect } from 'vitest'
import { addVariables, createContextWithKeys, inTempDir } from './support/keyedContext.ts'
import { test } from './support/sandboxTest.ts'

/*
 * Polish of issue 29, round 4: words that read as information, not as an error; an upload
 * error said once; and an upload that takes the name typed in the Name box.
 */

test('the secure coefficient-modulus limit reads as information when the bits fit, as a count when over', async ({
  sandbox: { page, errors },
}) => {
  await page.getByText('Custom bit sizes').click()
  await page.getByTestId('polyModulusDegree-4096').check({ force: true })
  // One prime is too few (the "you asked for 30"): the limit shows, and 30 bits are within it.
  await page.locator('#coeffBits').fill('30')
  const limit = page.getByTestId('params-limits').getByTestId('params-limit')
  await expect
    .poll(() => limit.textContent())
    .toBe('at most 109 bits at n = 4096, 128-bit security; your 30 bits fit, 79 to spare')
  await page.locator('#coeffBits').fill('60, 60')
  await expect
    .poll(() => limit.textContent())
    .toBe('at most 109 bits at n = 4096, 128-bit security; your 120 bits are 11 over')
  expect(errors).toEqual([])
})

test('a key-upload error is said once: no second line repeating it', async ({ sandbox: { page, errors } }) => {
  await createContextWithKeys(page)
  await inTempDir(async (dir) => {
    const garbage = join(dir, 'notes.sbx')
    await writeFile(garbage, 'these are not the keys you are looking for\n')
    await page.getByTestId('upload-secretKey').setInputFiles(garbage)
    const secretRow = page.getByTestId('key-secretKey')
    const damaged = secretRow.getByRole('alert')
    await damaged.waitFor({ timeout: 60_000 })
    await expect(damaged.getAttribute('data-error-code')).resolves.toBe('INVALID_ENVELOPE')
    await expect(damaged.locator('.notice-message').textContent()).resolves.toMatch(
      /^This is not a sealbox file, or it is damaged/,
    )
    await expect(damaged.locator('.notice-hint').count()).resolves.toBe(0)

    // The secret key uploaded as a public key: the wrong kind, said once.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download secret key' }).click(),
    ])
    const secret = join(dir, download.suggestedFilename())
    await download.saveAs(secret)
    await page.getByTestId('upload-publicKey').setInputFiles(secret)
    const wrongKind = page.getByTestId('key-publicKey').getByRole('alert')
    await wrongKind.waitFor({ timeout: 60_000 })
    await expect(wrongKind.locator('.notice-message').textContent()).resolves.toMatch(
      /^This file holds a secret key, not a public key\./,
    )
    await expect(wrongKind.locator('.notice-hint').count()).resolves.toBe(0)
  })
  expect(errors).toEqual([])
}, 180_000)

test('an uploaded variable takes the name typed in the Name box', async ({ sandbox: { page, errors } }) => {
  await createContextWithKeys(page)
  await addVariables(page, [['x', '1, 2, 3']])
  await inTempDir(async (dir) => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download x' }).click(),
    ])
    const file = join(dir, download.suggestedFilename())
    await download.saveAs(file)
    const nameBox = page.getByLabel('Name', { exact: true })

    // Typed: the upload is listed under that name, beside the x it came from.
    await nameBox.fill('copy')
    await page.getByTestId('upload-variable').setInputFiles(file)
    await page.getByTestId('variable-copy').waitFor({ timeout: 60_000 })
    await expect(page.getByTestId('variable-copy').getByTestId('preview').textContent()).resolves.toMatch(
      /^\[1, 2, 3, 0/,
    )
    await expect(page.getByTestId('variable-x').count()).resolves.toBe(1)
    // The box offers a fresh name again, as after Encode and encrypt.
    await expect(nameBox.inputValue()).resolves.not.toBe('copy')

    // A typed name that exists asks first, naming the typed name.
    await nameBox.fill('copy')
    await page.getByTestId('upload-variable').setInputFiles(file)
    const ask = page.getByRole('alertdialog', { name: 'Replace variable copy?' })
    await ask.waitFor()
    await expect(ask.textContent()).resolves.toMatch(/You named the upload of .+ 'copy'\./)
    await ask.getByRole('button', { name: 'Load as copy2' }).click()
    await page.getByTestId('variable-copy2').waitFor({ timeout: 60_000 })

    // A typed name that is no name is refused, and nothing is loaded.
    await nameBox.fill('2x')
    await page.getByTestId('upload-variable').setInputFiles(file)
    const refusal = page.locator('[data-panel="variables"] [data-error-code="INVALID_INPUT"]')
    await refusal.waitFor()
    await expect(refusal.textContent()).resolves.toMatch(/Names start with a letter.*\(Name\)/)
    await expect(page.locator('[data-testid^="variable-"]').count()).resolves.toBe(3)

    // Left empty, the file's own name is used, as before: x exists, so it asks.
    await nameBox.fill('')
    await page.getByTestId('upload-variable').setInputFiles(file)
    await page.getByRole('alertdialog', { name: 'Replace variable x?' }).waitFor()
  })
  expect(errors).toEqual([])
}, 180_000)

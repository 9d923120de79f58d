import { join } from 'node:path'
import { expect } from 'vitest'
import { createContextWithKeys, inTempDir } from './support/keyedContext.ts'
import { test } from './support/sandboxTest.ts'

/*
 * Polish of issue 29: messages in the form's own words, key files named after their key set,
 * and an uploaded key described as uploaded, not as made here.
 */

test('a fractional Scale (bits) is explained in the form\'s words, not as "ScaleBits"', async ({
  sandbox: { page, errors },
}) => {
  await page.getByTestId('scheme-ckks').check({ force: true })
  await page.locator('#scaleBits').fill('30.5')
  const alert = page.getByRole('alert').first()
  await alert.waitFor()
  const text = (await alert.textContent()) ?? ''
  expect(text).toBe('Scale (bits) takes a whole number: the scale is 2 to that power (Scale)')
  expect(text).not.toMatch(/scaleBits/i)
  // A whole number clears it.
  await page.locator('#scaleBits').fill('30')
  await expect.poll(() => page.getByRole('alert').filter({ hasText: 'whole number' }).count()).toBe(0)
  expect(errors).toEqual([])
})

test('a key file is named after its key set; an uploaded key reads as uploaded, not "made in"', async ({
  sandbox: { page, errors },
}) => {
  await createContextWithKeys(page)
  const keySet = ((await page.getByText(/^key set [0-9a-f]{8}$/).textContent()) ?? '').replace('key set ', '')
  expect(keySet).toMatch(/^[0-9a-f]{8}$/)
  // Made here: the time it took, said so.
  await expect(page.getByTestId('key-secretKey').textContent()).resolves.toMatch(/made here in [\d.]+ (ms|s)/)

  await inTempDir(async (dir) => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download secret key' }).click(),
    ])
    expect(download.suggestedFilename()).toBe(`secretKey.${keySet}.bfv-4096.sbx`)
    const file = join(dir, download.suggestedFilename())
    await download.saveAs(file)
    await page.getByTestId('upload-secretKey').setInputFiles(file)
    const row = page.getByTestId('key-secretKey')
    await row.getByText(/uploaded from a file/).waitFor({ timeout: 60_000 })
    const text = (await row.textContent()) ?? ''
    expect(text).not.toMatch(/made/)
    expect(text).toMatch(/uploaded from a file(, read in [\d.]+ (ms|s))?/)
  })
  expect(errors).toEqual([])
}, 180_000)

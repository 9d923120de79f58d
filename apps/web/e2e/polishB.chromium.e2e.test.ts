import { expect } from 'vitest'
import { test } from './support/sandboxTest.ts'

/*
 * Polish of issue 29: messages in the form's own words.
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

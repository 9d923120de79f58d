import type { Page } from 'playwright-core'
import { expect } from 'vitest'
import { expectNoHorizontalOverflow } from './support/layout.ts'
import { test } from './support/sandboxTest.ts'

/*
 * The parameter assistant offers BGV, and follows the scheme chosen in the form: BGV gets
 * a BGV suggestion that builds, CKKS a suggestion in CKKS terms (precision bits, a scale),
 * never plaintext bits.
 */

function assistantOf(page: Page) {
  return page.getByTestId('params-assistant')
}

/** The assistant's Values choice that is on. */
async function assistantScheme(page: Page): Promise<string> {
  return (await assistantOf(page).locator('input[type="radio"]:checked').getAttribute('value')) ?? ''
}

/** Fills the form with the suggestion and builds it; the "In use" line. */
async function fillAndCreate(page: Page): Promise<string> {
  await assistantOf(page).getByRole('button', { name: 'Fill the form with this suggestion' }).click()
  await page.getByRole('button', { name: /^(Create context|Use these parameters)$/ }).click()
  await page.getByRole('button', { name: 'In use' }).waitFor({ timeout: 120_000 })
  return (await page.getByTestId('params-in-use').textContent()) ?? ''
}

test('BGV in the form: the assistant offers BGV, a levelled chain that builds', async ({
  sandbox: { page, errors },
}) => {
  await expect(assistantScheme(page)).resolves.toBe('bfv')
  await page.getByTestId('scheme-bgv').check({ force: true })
  await expect.poll(() => assistantScheme(page)).toBe('bgv')
  const assistant = assistantOf(page)
  await assistant.getByLabel('Multiplications in a row').fill('3')
  await assistant.getByLabel('Values per ciphertext').fill('8')
  await assistant.getByLabel('Plaintext bits').fill('20')
  const suggestion = assistant.getByTestId('assistant-suggestion')
  await expect.poll(() => suggestion.locator('p.mono').textContent()).toMatch(/^BGV, n = 8192, coefficient modulus \[/)
  // One prime per multiplication between the first and the special prime.
  const primes = ((await suggestion.locator('p.mono').textContent()) ?? '').match(/\[([\d, ]+)\]/)?.[1]?.split(', ')
  expect(primes).toHaveLength(3 + 2)
  await expect(suggestion.textContent()).resolves.toMatch(/relinearize and mod-switch after each/)
  await expect(suggestion.getByTestId('assistant-values-line').textContent()).resolves.toMatch(
    /^Plain modulus: a 20-bit batching prime/,
  )
  await expect(fillAndCreate(page)).resolves.toMatch(/^In use: BGV, n = 8192/)
  expect(errors).toEqual([])
}, 180_000)

test('CKKS in the form: the assistant follows, in CKKS terms, and its suggestion builds', async ({
  sandbox: { page, errors },
}) => {
  await page.getByTestId('scheme-ckks').check({ force: true })
  await expect.poll(() => assistantScheme(page)).toBe('ckks')
  const assistant = assistantOf(page)
  await expect(assistant.getByLabel('Plaintext bits').count()).resolves.toBe(0)
  await assistant.getByLabel('Multiplications in a row').fill('2')
  await assistant.getByLabel('Values per ciphertext').fill('8')
  await assistant.getByLabel('Precision bits after the point').fill('20')
  const suggestion = assistant.getByTestId('assistant-suggestion')
  await expect.poll(() => suggestion.locator('p.mono').textContent()).toMatch(/^CKKS, n = \d+/)
  const words = (await suggestion.textContent()) ?? ''
  expect(words).not.toMatch(/plain/i)
  await expect(suggestion.getByTestId('assistant-values-line').textContent()).resolves.toBe(
    'Scale 2^40 (scale bits 40): about 20 bits of precision after the point.',
  )
  await expect(fillAndCreate(page)).resolves.toMatch(/^In use: CKKS/)
  await expect(page.locator('#scaleBits').inputValue()).resolves.toBe('40')

  // Back to BFV in the form: the assistant follows again, with plaintext bits.
  await page.getByTestId('scheme-bfv').check({ force: true })
  await expect.poll(() => assistantScheme(page)).toBe('bfv')
  await assistant.getByLabel('Plaintext bits').waitFor()
  // Its own switch picks another scheme without touching the form's.
  await assistant.getByTestId('assistant-scheme-bgv').check({ force: true })
  await expect.poll(() => assistant.getByTestId('assistant-suggestion').locator('p.mono').textContent()).toMatch(/^BGV/)
  await expect(page.getByTestId('scheme-bfv').isChecked()).resolves.toBe(true)
  // Three schemes side by side still fit a phone, and the keyboard reaches each.
  await page.setViewportSize({ width: 390, height: 844 })
  await expectNoHorizontalOverflow(page, 'assistant with three schemes at 390 px')
  await assistant.getByTestId('assistant-scheme-bgv').focus()
  await page.keyboard.press('ArrowRight')
  await expect.poll(() => assistantScheme(page)).toBe('ckks')
  expect(errors).toEqual([])
}, 180_000)

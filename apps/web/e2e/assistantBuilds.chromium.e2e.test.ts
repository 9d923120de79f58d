import type { Page } from 'playwright-core'
import { expect } from 'vitest'
import { saveIssueShot } from './support/issueShots.ts'
import { test } from './support/sandboxTest.ts'

/*
 * The parameter assistant only suggests what SEAL builds (issue 29, major 1): the
 * issue's own inputs, in the page. The whole input space is he-core's property test
 * (suggestParams.property.test.ts); here the form, "Fill the form" and Create context.
 */

function assistantOf(page: Page) {
  return page.getByTestId('params-assistant')
}

async function ask(page: Page, needs: { depth: string; slots: string; bits: string }): Promise<void> {
  const assistant = assistantOf(page)
  await assistant.getByLabel('Multiplications in a row').fill(needs.depth)
  await assistant.getByLabel('Values per ciphertext').fill(needs.slots)
  await assistant.getByLabel('Plaintext bits').fill(needs.bits)
}

async function problems(page: Page): Promise<string[]> {
  return assistantOf(page).getByTestId('assistant-problems').locator('li').allTextContents()
}

/** Fills the form with the suggestion, builds the context and returns what the page then says. */
async function fillAndCreate(page: Page): Promise<string> {
  await assistantOf(page).getByRole('button', { name: 'Fill the form with this suggestion' }).click()
  await page.getByRole('button', { name: /^(Create context|Use these parameters)$/ }).click()
  // Built: the button says "In use"; refused: an alert on the Parameters panel.
  const built = page.getByRole('button', { name: 'In use' })
  const refused = page.locator('[data-panel="parameters"] [role="alert"]')
  await Promise.race([built.waitFor({ timeout: 120_000 }), refused.first().waitFor({ timeout: 120_000 })])
  if (await refused.count()) return `refused: ${await refused.first().textContent()}`
  return (await page.getByTestId('params-in-use').textContent()) ?? ''
}

test('3 multiplications, 8 values, 16 bits: no unbuildable suggestion; it names 17 bits, which then builds', async ({
  sandbox: { page, errors },
}) => {
  await ask(page, { depth: '3', slots: '8', bits: '16' })
  await expect.poll(() => problems(page)).toEqual([expect.stringMatching(/no batching prime of exactly 16 bits/)])
  const [refusal] = await problems(page)
  expect(refusal).toMatch(/17 plaintext bits/)
  expect(refusal).not.toMatch(/fewer plaintext bits/)
  await saveIssueShot(page, 'major1-assistant-16-bits')
  await ask(page, { depth: '3', slots: '8', bits: '17' })
  await expect(fillAndCreate(page)).resolves.toMatch(/n = \d+/)
  expect(errors).toEqual([])
})

test('1 multiplication and 15 bits never reaches the form it breaks; 13 or 14 bits point up, not down', async ({
  sandbox: { page, errors },
}) => {
  await ask(page, { depth: '1', slots: '8', bits: '15' })
  await expect.poll(() => problems(page)).toEqual([expect.stringMatching(/no batching prime of exactly 15 bits/)])
  await expect(
    assistantOf(page).getByRole('button', { name: 'Fill the form with this suggestion' }).count(),
  ).resolves.toBe(0)
  for (const bits of ['13', '14']) {
    await ask(page, { depth: '1', slots: '8', bits })
    await expect.poll(() => problems(page)).toEqual([expect.stringMatching(/1[5-9] plaintext bits would work/)])
    await expect(problems(page)).resolves.not.toContainEqual(expect.stringMatching(/fewer plaintext bits/))
  }
  expect(errors).toEqual([])
})

test('every suggestion for 0…4 multiplications and 13…24 plaintext bits fills the form and builds', async ({
  sandbox: { page, errors },
}) => {
  const built = new Set<string>()
  for (const depth of ['0', '2', '4']) {
    for (const bits of ['13', '15', '16', '17', '20', '24']) {
      await ask(page, { depth, slots: '8', bits })
      const fill = assistantOf(page).getByRole('button', { name: 'Fill the form with this suggestion' })
      const refusal = assistantOf(page).getByTestId('assistant-problems')
      await Promise.race([fill.waitFor(), refusal.waitFor()])
      if (!(await fill.count())) continue
      const suggestion =
        (await assistantOf(page).getByTestId('assistant-suggestion').locator('p').first().textContent()) ?? ''
      if (built.has(suggestion)) continue
      built.add(suggestion)
      await expect(fillAndCreate(page), suggestion).resolves.toMatch(/n = \d+/)
    }
  }
  expect(built.size).toBeGreaterThan(5)
  expect(errors).toEqual([])
}, 600_000)

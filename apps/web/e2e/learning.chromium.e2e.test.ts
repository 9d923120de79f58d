import { EXAMPLE_WORKSPACES } from '@sealbox/he-core'
import type { Page } from 'playwright-core'
import { describe, expect } from 'vitest'
import { expectNoHorizontalOverflow } from './support/layout.ts'
import { openPanel } from './support/openPanel.ts'
import { type SandboxOptions, test as sandboxTest } from './support/sandboxTest.ts'

/*
 * The sandbox's learner features in Chromium: the noise chart with its
 * prediction, "decrypt anyway" on an exhausted budget, the inspector of keys and values,
 * and the CKKS error chart. Each test opens its own fresh page and builds what it needs.
 */

const WIDE = { width: 1400, height: 900 }
const NARROW = { width: 390, height: 844 }
/** Every test's own fresh page, wide. */
const test = sandboxTest.extend<{ $test: { sandboxOptions: SandboxOptions } }>({ sandboxOptions: { viewport: WIDE } })

async function createVariable(
  page: Page,
  name: string,
  values: string,
  kind: 'ciphertext' | 'plaintext' = 'ciphertext',
) {
  await openPanel(page, 'Variables')
  await page.getByLabel('Name', { exact: true }).fill(name)
  await page.getByTestId(`kind-${kind}`).check({ force: true })
  await page.getByLabel('Values').fill(values)
  await page.getByRole('button', { name: kind === 'ciphertext' ? 'Encode and encrypt' : 'Encode', exact: true }).click()
  await page.getByTestId(`variable-${name}`).waitFor()
}

async function addStep(page: Page, label: string): Promise<void> {
  await page.getByLabel('Operation to add').selectOption({ label })
  await page.getByRole('button', { name: 'Add step' }).click()
}

/** The default parameters, keys, and x = [1, 2, 3, 4], y = [5, 6, 7, 8] encrypted. */
async function defaultWorkspace(page: Page): Promise<void> {
  await openPanel(page, 'Parameters')
  await page.getByRole('button', { name: 'Create context' }).click()
  await page.getByTestId('params-in-use').waitFor({ timeout: 60_000 })
  await openPanel(page, 'Keys')
  await page.getByRole('button', { name: 'Generate keys' }).click()
  await page.getByTestId('key-relinKeys').getByText('ready').waitFor({ timeout: 60_000 })
  await createVariable(page, 'x', '1, 2, 3, 4')
  await createVariable(page, 'y', '5, 6, 7, 8')
}

/** multiply → relinearize, run. */
async function multiplyRelinearize(page: Page): Promise<void> {
  await openPanel(page, 'Functions')
  await addStep(page, 'Multiply')
  await addStep(page, 'Relinearize')
  await page.getByRole('button', { name: 'Run all steps' }).click()
  await page.getByTestId('step-2').getByTestId('step-result').getByText('✓').waitFor({ timeout: 60_000 })
}

/** The numbers in a cell ("−31" reads as -31). */
async function cellNumber(page: Page, row: string, cell: string): Promise<number> {
  const text = (await page.getByTestId(`noise-row-${row}`).getByTestId(cell).textContent()) ?? ''
  return Number(text.replace('−', '-').replace('+', ''))
}

describe('learner features in Chromium', () => {
  test('noise you can see: predicted before running, measured with per-step deltas after', async ({
    sandbox: { page, errors },
  }) => {
    await defaultWorkspace(page)
    const xBudget = Number(/(\d+) bits budget/.exec((await page.getByTestId('variable-x').textContent()) ?? '')?.[1])
    expect(xBudget).toBeGreaterThan(30)

    await openPanel(page, 'Functions')
    await addStep(page, 'Multiply')
    await addStep(page, 'Relinearize')
    const chart = page.getByTestId('noise-chart')
    await chart.waitFor()
    // Before anything runs: the inputs' measured budgets and he-core's prediction.
    const summary = (await page.getByTestId('noise-prediction').textContent()) ?? ''
    expect(summary).toMatch(
      /^Predicted: the pipeline spends about \d+ bits of noise budget and ends with \d+ bits left\.$/,
    )
    await chart.getByText('Chart data').click()
    expect(await cellNumber(page, 'x', 'noise-measured')).toBe(xBudget)
    await expect(page.getByTestId('noise-row-r1').getByTestId('noise-measured').textContent()).resolves.toBe('—')
    const predicted = await cellNumber(page, 'r1', 'noise-predicted')
    expect(predicted).toBeGreaterThan(0)
    expect(predicted).toBeLessThan(xBudget)
    const image = chart.getByRole('img')
    await expect(image.getAttribute('aria-label')).resolves.toMatch(/^Noise budget in bits per input and step/)

    await page.getByRole('button', { name: 'Run all steps' }).click()
    await page.getByTestId('step-2').getByTestId('step-result').getByText('✓').waitFor({ timeout: 60_000 })
    const measured = await cellNumber(page, 'r1', 'noise-measured')
    // The prediction is a model: within a few bits of what SEAL measured.
    expect(Math.abs(measured - predicted)).toBeLessThanOrEqual(6)
    const yBudget = await cellNumber(page, 'y', 'noise-measured')
    expect(await cellNumber(page, 'r1', 'noise-delta')).toBe(measured - Math.min(xBudget, yBudget))
    expect(await cellNumber(page, 'r1', 'noise-delta')).toBeLessThan(-20)
    await expect(image.getAttribute('aria-label')).resolves.toContain(`1 Multiply ${measured} measured`)
    expect(errors).toEqual([])
  })

  test('look at the garbage: the refusal is predicted, and "decrypt anyway" shows the wrong values, marked', async ({
    sandbox: { page, errors },
  }) => {
    await defaultWorkspace(page)
    await multiplyRelinearize(page)
    await addStep(page, 'Square')
    await expect(page.getByTestId('noise-prediction').textContent()).resolves.toBe(
      'Predicted: Step 3 (Square) uses up the noise budget; its result would decrypt to garbage.',
    )
    await page.getByRole('button', { name: 'Run all steps' }).click()
    const error = page.getByTestId('step-3').getByRole('alert')
    await error.waitFor({ timeout: 60_000 })
    expect(await error.getAttribute('data-error-code')).toBe('NOISE_BUDGET_EXHAUSTED')
    await page.getByRole('button', { name: 'Decrypt anyway (step 3)' }).click()
    const garbage = page.getByTestId('step-3').getByTestId('garbage')
    await garbage.waitFor()
    await expect(garbage.textContent()).resolves.toMatch(/Garbage — decrypted anyway\..*has 0 bits of noise budget/)
    // The exact values come from he-core's plain oracle over the decrypted inputs: (x·y)².
    await expect
      .poll(async () => (await garbage.getByTestId('exact-value').allTextContents()).slice(0, 5))
      .toEqual(['25', '144', '441', '1024', '0'])
    const got = await garbage.getByTestId('garbage-value').allTextContents()
    expect(got.slice(0, 4)).not.toEqual(['25', '144', '441', '1024'])
    const wrong = Number(await garbage.getByTestId('garbage-wrong').textContent())
    expect(wrong).toBeGreaterThan(1000)
    await expect(garbage.locator('tr.garbage-wrong').count()).resolves.toBeGreaterThan(0)
    // The chart marks the exhausted result.
    expect(await cellNumber(page, 'r3', 'noise-measured').catch(() => Number.NaN)).toBe(0)
    expect(errors).toEqual([])
  })

  test('an inspector for ciphertexts, plaintexts and keys', async ({ sandbox: { page, errors } }) => {
    await defaultWorkspace(page)
    await createVariable(page, 'p', '7, 8, 9', 'plaintext')
    const row = page.getByTestId('variable-x')
    await row.getByRole('button', { name: 'Inspect x' }).click()
    const inspector = row.getByTestId('inspector')
    await inspector.getByTestId('inspector-parms-id').waitFor()
    await expect(inspector.getByTestId('inspector-parms-id').textContent()).resolves.toMatch(
      /^([0-9a-f]{16} ){3}[0-9a-f]{16}$/,
    )
    await expect(inspector.getByTestId('inspector-level').textContent()).resolves.toBe('1 (2 primes)')
    await expect(inspector.getByTestId('inspector-size').textContent()).resolves.toBe('2')
    const bytes = (await inspector.getByTestId('inspector-bytes').textContent()) ?? ''
    const variableBytes = (await row.textContent()) ?? ''
    expect(bytes).toMatch(/\(\d+ bytes\)$/)
    expect(variableBytes).toContain(bytes.split(' (')[0])
    const hex = (await inspector.getByTestId('inspector-dump').textContent()) ?? ''
    expect(hex).toMatch(/^([0-9a-f]{2} ){255}[0-9a-f]{2} … [\d.]+ KiB more$/)
    await inspector.getByTestId('inspector-encoding-base64').check({ force: true })
    const b64 = (await inspector.getByTestId('inspector-dump').textContent()) ?? ''
    const first = hex
      .split(' ')
      .slice(0, 3)
      .map((h) => Number.parseInt(h, 16))
    expect([...Buffer.from(b64.slice(0, 4), 'base64')]).toEqual(first)

    const plain = page.getByTestId('variable-p')
    await plain.getByRole('button', { name: 'Inspect p' }).click()
    const plainInspector = plain.getByTestId('inspector')
    await plainInspector.getByTestId('inspector-coefficients').waitFor()
    // A BFV plaintext belongs to no level: SEAL gives it the zero parms id.
    await expect(plainInspector.getByTestId('inspector-parms-id').textContent()).resolves.toBe(
      Array(4).fill('0'.repeat(16)).join(' '),
    )
    await expect(plainInspector.getByTestId('inspector-coefficients').textContent()).resolves.toMatch(/^(\d+, ){16}…$/)
    // Batching spreads 7, 8, 9 over every coefficient: not a polynomial with 7, 8, 9 as coefficients.
    await expect(plainInspector.getByTestId('inspector-coefficients').textContent()).resolves.not.toMatch(/^7, 8, 9, 0/)

    await openPanel(page, 'Keys')
    const relin = page.getByTestId('key-relinKeys')
    await relin.getByRole('button', { name: 'Inspect relinearization keys' }).click()
    const keyInspector = relin.getByTestId('inspector')
    await keyInspector.getByTestId('inspector-key-switching-keys').waitFor()
    // Keys live at the key level, one above fresh ciphertexts, with every prime.
    await expect(keyInspector.getByTestId('inspector-level').textContent()).resolves.toBe('2 (3 primes)')
    await expect(keyInspector.getByTestId('inspector-key-switching-keys').textContent()).resolves.toBe('1')
    await expect(keyInspector.getByTestId('inspector-dump').textContent()).resolves.toMatch(/^[0-9a-f]{2} /)
    await page.getByTestId('key-secretKey').getByRole('button', { name: 'Inspect secret key' }).click()
    await page.getByTestId('key-secretKey').getByTestId('inspector-parms-id').waitFor()
    expect(errors).toEqual([])
  })

  test('no panel with the chart, the garbage or an inspector scrolls sideways at 1400 px or 390 px', async ({
    sandbox: { page, errors },
  }) => {
    // The widest content: a chart with an exhausted step decrypted anyway, and open inspectors.
    await defaultWorkspace(page)
    await multiplyRelinearize(page)
    await addStep(page, 'Square')
    await page.getByText('Predicted: Step 3 (Square) uses up the noise budget').waitFor()
    await page.getByRole('button', { name: 'Run all steps' }).click()
    await page.getByTestId('step-3').locator('[data-error-code="NOISE_BUDGET_EXHAUSTED"]').waitFor({ timeout: 60_000 })
    await page.getByRole('button', { name: 'Decrypt anyway (step 3)' }).click()
    await page.getByTestId('step-3').getByTestId('garbage').waitFor()
    await createVariable(page, 'p', '7, 8, 9', 'plaintext')
    await page.getByTestId('variable-x').getByRole('button', { name: 'Inspect x' }).click()
    await page.getByTestId('variable-x').getByTestId('inspector-parms-id').waitFor()
    await openPanel(page, 'Keys')
    await page.getByTestId('key-relinKeys').getByRole('button', { name: 'Inspect relinearization keys' }).click()
    await page.getByTestId('key-relinKeys').getByTestId('inspector-key-switching-keys').waitFor()
    for (const size of [WIDE, NARROW]) {
      await page.setViewportSize(size)
      for (const panel of ['Keys', 'Variables', 'Functions']) {
        await openPanel(page, panel)
        await expectNoHorizontalOverflow(page, `${panel} (learner features) at ${size.width} px`)
      }
    }
    expect(errors).toEqual([])
  })

  test('CKKS: each step’s error against the exact cleartext result', async ({ sandbox: { page, errors } }) => {
    await page.getByRole('button', { name: 'Examples' }).click()
    await page.getByRole('button', { name: 'Load the CKKS, n = 8192 example' }).click()
    await openPanel(page, 'Functions')
    const steps = EXAMPLE_WORKSPACES.ckks.steps.length
    await page.getByTestId(`step-${steps}`).getByTestId('step-result').getByLabel('done').waitFor({ timeout: 120_000 })
    const chart = page.getByTestId('noise-chart')
    await expect(chart.getByRole('heading').textContent()).resolves.toBe('Error against the numbers typed')
    await expect(page.getByTestId('noise-prediction').textContent()).resolves.toMatch(
      /^Predicted: the pipeline ends at level \d/,
    )
    await chart.getByText('Chart data').click()
    // Every step, and every ciphertext input (its encoding error against the numbers typed).
    const inputs = EXAMPLE_WORKSPACES.ckks.variables.filter((v) => v.kind === 'ciphertext').length
    await expect
      .poll(async () => (await chart.getByTestId('noise-error').allTextContents()).filter((t) => t !== '—').length)
      .toBe(steps + inputs)
    for (const text of await chart.getByTestId('noise-error').allTextContents()) {
      if (text === '—') continue
      const error = Number(text)
      expect(error).toBeGreaterThanOrEqual(0)
      expect(error).toBeLessThan(1e-2)
    }
    await expect(chart.getByRole('img').getAttribute('aria-label')).resolves.toMatch(
      /^Correct decimal digits per input and step/,
    )
    for (const size of [WIDE, NARROW]) {
      await page.setViewportSize(size)
      await expectNoHorizontalOverflow(page, `Functions (CKKS error chart) at ${size.width} px`)
    }
    expect(errors).toEqual([])
  })
})

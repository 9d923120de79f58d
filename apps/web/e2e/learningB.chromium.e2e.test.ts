import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { inflateRawSync } from 'node:zlib'
import { EXAMPLE_WORKSPACES } from '@sealbox/he-core'
import type { Page } from 'playwright-core'
import { describe, expect, inject } from 'vitest'
import { runAxe } from './support/axe.ts'
import { PANEL_NAMES } from './support/layout.ts'
import { openPanel } from './support/openPanel.ts'
import { test } from './support/sandboxTest.ts'
import { venvPython } from './support/venvPython.ts'
import { withSavedDownload } from './support/withSavedDownload.ts'

/*
 * The sandbox's learner features, part B, in Chromium against the built app and the real
 * server: the parameter assistant and the limits shown while a field is invalid, the
 * Python export run with the bench's seal-python wheel, permalinks opened in a fresh
 * browser, the Server panel kept across reloads (process executor, one run counter,
 * the cosine note), and axe-core on every panel. Each test opens its own fresh page and
 * builds what it needs.
 */

const run = promisify(execFile)
/**
 * axe rules below "serious" (moderate, minor) held on every panel all the same: one
 * `<main>` landmark (landmark-one-main), all content inside landmarks (region), and no
 * role a `<main>` may not take, such as tabpanel (aria-allowed-role).
 */
const LANDMARK_RULES = ['landmark-one-main', 'region', 'aria-allowed-role']

async function loadBfvExample(target: Page): Promise<void> {
  await target.getByRole('button', { name: 'Examples' }).click()
  await target.getByRole('button', { name: 'Load the BFV, n = 4096 example' }).click()
  await target.getByRole('tab', { name: /Functions/ }).click()
  const last = target.getByTestId(`step-${EXAMPLE_WORKSPACES.bfv.steps.length}`)
  await last.getByTestId('step-result').getByLabel('done').waitFor({ timeout: 120_000 })
}

describe('learner features B in Chromium', () => {
  test('suggests parameters with reasons, lists every broken need at once, and fills the form', async ({
    sandbox: { page, errors },
  }) => {
    const assistant = page.getByTestId('params-assistant')
    const suggestion = assistant.getByTestId('assistant-suggestion')
    // Defaults: whole numbers, 2 multiplications, 8 values, 20 bits, 128-bit security.
    await expect(suggestion.textContent()).resolves.toMatch(/BFV, n = 8192, coefficient modulus \[51, 51, 51\]/)
    await expect(suggestion.textContent()).resolves.toMatch(/each of the 2 multiplications about 33/)
    await assistant.getByLabel('Multiplications in a row').fill('x')
    await assistant.getByLabel('Plaintext bits').fill('70')
    const problems = assistant.getByTestId('assistant-problems').locator('li')
    await expect(problems.allTextContents()).resolves.toEqual([
      'The number of multiplications in a row must be a whole number 0…30. (Multiplications in a row)',
      'A batching plain modulus has 13…60 bits (it must be a prime ≡ 1 mod 2n). (Plaintext bits)',
    ])
    await assistant.getByLabel('Multiplications in a row').fill('3')
    await assistant.getByLabel('Plaintext bits').fill('20')
    await assistant.getByRole('button', { name: 'Fill the form with this suggestion' }).click()
    await expect(page.locator('#coeffBits').inputValue()).resolves.toBe('45, 45, 45, 45')
    await expect(page.getByTestId('params-facts').textContent()).resolves.toMatch(/180 bits of 218 allowed/)
    expect(errors).toEqual([])
  })

  test('keeps "What you get" while a field is invalid, showing the limit being fought, plain words first', async ({
    sandbox: { page, errors },
  }) => {
    await page.getByText('Custom bit sizes').click()
    await page.getByTestId('polyModulusDegree-4096').check({ force: true })
    await page.locator('#coeffBits').fill('60, 60, 60')
    const limits = page.getByTestId('params-limits')
    await limits.waitFor()
    await expect(limits.getByTestId('params-limit').textContent()).resolves.toBe(
      'at most 109 bits at n = 4096, 128-bit security; your 180 bits are 71 over',
    )
    await expect(limits.getByText(/^Slots/).count()).resolves.toBe(1)
    const reason = (await page.getByRole('alert').first().textContent()) ?? ''
    expect(reason).toMatch(/allows at most 109/)
    // The reason in words first, the field's name last.
    expect(reason).toMatch(/^[A-Z0-9].*\(Coefficient modulus\)$/)
    // A second broken rule is listed too, under its own field and beside the limit.
    await page.getByLabel('Plain modulus bits').fill('abc')
    const reasons = limits.getByTestId('params-limit-reasons').locator('li')
    await expect.poll(() => reasons.count()).toBe(2)
    await expect(reasons.allTextContents()).resolves.toEqual([
      '"abc" is not a whole number (Plain modulus bits)',
      expect.stringMatching(
        /^Coefficient modulus totals 180 bits; n = 4096 at 128-bit security allows at most 109 \(Coefficient modulus\)$/,
      ),
    ])
    await expect(page.getByRole('alert').count()).resolves.toBe(2)
    await page.getByLabel('Plain modulus bits').fill('20')
    await expect.poll(() => reasons.count()).toBe(1)
    expect(errors).toEqual([])
  })

  test('exports the BFV example to Python; the seal-python wheel prints what the sandbox computed', async ({
    sandbox: { page },
  }) => {
    await loadBfvExample(page)
    await openPanel(page, 'Code')
    await page.getByTestId('language-python').check({ force: true })
    await expect(page.getByTestId('python-help').textContent()).resolves.toMatch(/seal-python==4\.1\.2\.1/)
    const code = (await page.getByTestId('generated-code').textContent()) ?? ''
    expect(code).toMatch(/^# Generated by sealbox/)
    expect(code).toContain('import seal')
    const expected = ((await page.getByTestId('expected-output').textContent()) ?? '').split('\n')
    expect(expected.length).toBeGreaterThan(3)
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download sealbox_workspace.py' }).click(),
    ])
    expect(download.suggestedFilename()).toBe('sealbox_workspace.py')
    const python = await venvPython()
    if (!python) {
      console.warn('python3 is missing: the downloaded Python program was not executed')
      return
    }
    const { stdout } = await withSavedDownload(download, (program) => run(python, [program], { timeout: 120_000 }))
    expect(stdout.trimEnd().split('\n')).toEqual(expected)
  })

  test('copies a permalink without keys; a fresh browser opens it, makes keys and runs to the same values', async ({
    sandbox: { page, errors },
    newPage,
  }) => {
    await loadBfvExample(page)
    await openPanel(page, 'Code')
    const expected = (await page.getByTestId('expected-output').textContent()) ?? ''
    await page.getByRole('button', { name: 'Copy link' }).click()
    const link = await page.getByLabel('Workspace link').inputValue()
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click()
    const url = new URL(link)
    expect(url.hash).toMatch(/^#code&w=[\w-]+$/)
    // What the link holds: the workspace as data, never a key, a ciphertext or the secret key.
    const json = inflateRawSync(Buffer.from(url.hash.replace(/^#code&w=/, ''), 'base64url')).toString()
    const spec = JSON.parse(json)
    expect(Object.keys(spec).sort()).toEqual(
      ['display', 'encryption', 'keys', 'params', 'print', 'steps', 'variables', 'version'].sort(),
    )
    expect(spec.keys).toMatchObject({ seeded: false })
    expect(json).not.toMatch(/secretKey|envelope|\$bytes/)
    expect(spec.steps).toHaveLength(EXAMPLE_WORKSPACES.bfv.steps.length)

    // Another person: a fresh browser context, with nothing saved.
    const other = await newPage()
    const otherErrors: string[] = []
    other.on('pageerror', (error) => otherErrors.push(String(error)))
    await other.goto(link)
    await other.getByText(/Opened a shared workspace/).waitFor({ timeout: 120_000 })
    // The link's `w=` leaves the address bar: a reload keeps the saved workspace.
    expect(new URL(other.url()).hash).toBe('#code')
    await other.getByTestId('expected-output').waitFor()
    await expect(other.getByTestId('expected-output').textContent()).resolves.toBe(expected)
    await other.getByRole('tab', { name: /Keys/ }).click()
    await other.getByTestId('key-relinKeys').getByText('ready').waitFor()
    expect(otherErrors).toEqual([])
    expect(errors).toEqual([])
  })

  test('refuses a damaged permalink in plain words', async ({ newPage }) => {
    const other = await newPage()
    await other.goto(`${inject('sandboxUrl')}/#functions&w=bm90LWEtd29ya3NwYWNl`)
    await other.getByTestId('worker-ready').waitFor({ timeout: 60_000 })
    await expect(other.getByRole('alert').first().textContent()).resolves.toMatch(
      /This link does not hold a sealbox workspace/,
    )
  })

  test('runs on the process executor, counts pipeline and search runs together, explains 0.995, and keeps it all across a reload', async ({
    sandbox: { page, errors },
  }) => {
    await loadBfvExample(page)
    await openPanel(page, 'Server')
    await page.getByRole('button', { name: 'Connect' }).click()
    await page.getByTestId('server-connection').getByText('Ready').waitFor({ timeout: 60_000 })
    const pipeline = page.getByRole('region', { name: 'Run the pipeline on the server' })
    await pipeline.getByTestId('executor-process').check({ force: true })
    await pipeline.getByRole('button', { name: 'Run pipeline on server' }).click()
    const remote = pipeline.getByTestId('remote-run').first()
    await remote.waitFor({ timeout: 120_000 })
    await expect(remote.textContent()).resolves.toMatch(/^Run 1process/)
    await expect(remote.getByTestId('remote-output-dot').textContent()).resolves.toMatch(/same/)

    const search = page.getByRole('region', { name: 'Private search' })
    const before = await search.getByLabel(/Query vector/).inputValue()
    await search.getByLabel('Database row').fill('42')
    await search.getByRole('button', { name: 'Use database row' }).click()
    await expect.poll(() => search.getByLabel(/Query vector/).inputValue()).not.toBe(before)
    await search.getByRole('button', { name: 'Search privately' }).click()
    const result = search.getByTestId('search-result').first()
    await result.waitFor({ timeout: 60_000 })
    await expect(result.textContent()).resolves.toMatch(/^Run 2search/)
    const best = Number(
      await result.getByTestId('search-hits').locator('tbody tr').first().locator('td').last().textContent(),
    )
    expect(best).toBeGreaterThan(0.98)
    expect(best).toBeLessThan(1)
    await expect(result.getByTestId('cosine-note').textContent()).resolves.toMatch(
      /about 0\.995, not 1: the server computes on integers, so every vector is\s+scaled by [\d,]+ and rounded/,
    )

    await page.reload()
    await page.getByTestId('worker-ready').waitFor({ timeout: 60_000 })
    await page.getByTestId('server-connection').getByText('Ready').waitFor({ timeout: 60_000 })
    await expect(page.getByTestId('remote-run').first().textContent()).resolves.toMatch(/^Run 1process/)
    await expect(page.getByTestId('search-result').first().textContent()).resolves.toMatch(/^Run 2search/)
    // The next run continues the one counter.
    await page
      .getByRole('region', { name: 'Run the pipeline on the server' })
      .getByRole('button', { name: 'Run pipeline on server' })
      .click()
    await expect
      .poll(() => page.getByTestId('remote-run').first().textContent(), { timeout: 120_000 })
      .toMatch(/^Run 3/)
    expect(errors).toEqual([])
  })

  test('has no serious or critical axe-core violations on any panel, and never breaks the landmark rules', async ({
    sandbox: { page, errors },
  }) => {
    // Every panel with content: the BFV example run, and a server connection.
    await loadBfvExample(page)
    await openPanel(page, 'Server')
    await page.getByRole('button', { name: 'Connect' }).click()
    await page.getByTestId('server-connection').getByText('Ready').waitFor({ timeout: 60_000 })
    const found: string[] = []
    const notRun: string[] = []
    for (const name of PANEL_NAMES) {
      await openPanel(page, name)
      const result = await runAxe(page, { resultTypes: ['violations'] })
      const violations = result.violations.filter(
        (v) => v.impact === 'serious' || v.impact === 'critical' || LANDMARK_RULES.includes(v.id),
      )
      found.push(
        ...violations.map(
          (v) => `${name}: ${v.id} (${v.impact}): ${v.nodes.map((n) => JSON.stringify(n.target)).join(' ')}`,
        ),
      )
      // The landmark rules ran (a rule axe skipped would pass by silence).
      const ran = [...result.passes, ...result.violations].map((rule) => rule.id)
      notRun.push(...LANDMARK_RULES.filter((id) => !ran.includes(id)).map((id) => `${name}: ${id}`))
    }
    expect(found).toEqual([])
    expect(notRun).toEqual([])
    expect(errors).toEqual([])
  })
})

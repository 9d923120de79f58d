import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { EXAMPLE_WORKSPACES } from '@sealbox/he-core'
import type { Page } from 'playwright-core'
import { describe, expect } from 'vitest'
import { WEB_ROOT } from './support/buildApp.ts'
import { ckksExampleLines, numbersOf } from './support/exampleOracle.ts'
import { openPanel } from './support/openPanel.ts'
import { test } from './support/sandboxTest.ts'
import { saveElementScreenshot, saveScreenshot } from './support/screenshots.ts'
import { withSavedDownload } from './support/withSavedDownload.ts'

/*
 * The sandbox as a person uses it, in Chromium. Every test opens a fresh page (an empty
 * workspace) and builds the state it needs with the helpers below, so each runs alone.
 */

const run = promisify(execFile)

/** BFV at n = 4096 with primes of 36, 36 and 37 bits. */
async function chooseParams(page: Page): Promise<void> {
  await openPanel(page, 'Parameters')
  await page.getByText('Custom bit sizes').click()
  await page.getByLabel('Prime bit sizes').fill('36, 36, 37')
  await page.getByRole('button', { name: 'Create context' }).click()
  await page.getByTestId('params-in-use').waitFor()
}

/** Secret, public, relinearization and Galois keys (steps -1, 1). */
async function generateKeys(page: Page): Promise<void> {
  await openPanel(page, 'Keys')
  await page.getByRole('button', { name: 'Generate keys' }).click()
  await page.getByTestId('key-galoisKeys').getByText('ready').waitFor({ timeout: 60_000 })
}

/** x = [1, 2, 3, 4] and y = [5, 6, 7, 8], encrypted. */
async function encryptXY(page: Page): Promise<void> {
  await openPanel(page, 'Variables')
  await page.getByLabel('Values').fill('1, 2, 3, 4')
  await page.getByRole('button', { name: 'Encode and encrypt' }).click()
  await page.getByTestId('variable-x').waitFor()
  await page.getByLabel('Values').fill('5, 6, 7, 8')
  await page.getByRole('button', { name: 'Encode and encrypt' }).click()
  await page.getByTestId('variable-y').waitFor()
}

async function addStep(page: Page, label: string): Promise<void> {
  await page.getByLabel('Operation to add').selectOption({ label })
  await page.getByRole('button', { name: 'Add step' }).click()
}

/** multiply → relinearize → rotate rows, run: r3 = [12, 21, 32, 0, …]. */
async function runPipeline(page: Page): Promise<void> {
  await openPanel(page, 'Functions')
  await addStep(page, 'Multiply')
  await addStep(page, 'Relinearize')
  await addStep(page, 'Rotate rows')
  await page.getByRole('button', { name: 'Run all steps' }).click()
  await page.getByTestId('step-3').getByTestId('step-result').getByText('✓').waitFor({ timeout: 60_000 })
}

/** The whole BFV workspace the later tests start from: parameters, keys, x and y, the pipeline run. */
async function bfvWorkspace(page: Page): Promise<void> {
  await chooseParams(page)
  await generateKeys(page)
  await encryptXY(page)
  await runPipeline(page)
}

/** Connects the Server panel to the serving server and waits for "Ready". */
async function connect(page: Page): Promise<void> {
  await openPanel(page, 'Server')
  await page.getByRole('button', { name: 'Connect' }).click()
  await page.getByTestId('server-connection').getByText('Ready').waitFor({ timeout: 60_000 })
}

describe('sandbox in Chromium', () => {
  test('validates parameters live and builds a context', async ({ sandbox: { page, errors } }) => {
    await openPanel(page, 'Parameters')
    await page.getByText('Custom bit sizes').click()
    const bits = page.getByLabel('Prime bit sizes')
    await bits.fill('60, 60, 60')
    await expect(page.getByRole('alert').first().textContent()).resolves.toMatch(/allows at most 109/)
    await expect(page.getByRole('button', { name: 'Create context' }).isDisabled()).resolves.toBe(true)
    await bits.fill('36, 36, 37')
    await page.getByRole('button', { name: 'Create context' }).click()
    await page.getByTestId('params-in-use').waitFor()
    const facts = await page.getByTestId('params-facts').textContent()
    expect(facts).toContain('4,096')
    expect(facts).toContain('1,032,193')
    await saveScreenshot(page, 'parameters')
    expect(errors).toEqual([])
  })

  test('generates keys with relinearization and chosen rotation steps', async ({ sandbox: { page, errors } }) => {
    await chooseParams(page)
    await openPanel(page, 'Keys')
    await page.getByRole('button', { name: 'Generate keys' }).click()
    await page.getByTestId('key-galoisKeys').getByText('ready').waitFor({ timeout: 60_000 })
    for (const kind of ['secretKey', 'publicKey', 'relinKeys']) {
      await expect(page.getByTestId(`key-${kind}`).textContent()).resolves.toMatch(/KiB/)
    }
    await expect(page.getByTestId('key-galoisKeys').textContent()).resolves.toMatch(/steps -1, 1/)
    await saveScreenshot(page, 'keys')
    expect(errors).toEqual([])
  })

  test('refuses a key file of the wrong kind with a plain-language error', async ({ sandbox: { page } }) => {
    await chooseParams(page)
    await generateKeys(page)
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download galois keys' }).click(),
    ])
    await withSavedDownload(download, (file) => page.getByTestId('upload-relinKeys').setInputFiles(file))
    const alert = page.getByTestId('key-relinKeys').getByRole('alert')
    await alert.waitFor()
    await expect(alert.textContent()).resolves.toMatch(/This file holds Galois keys, not relinearization keys/)
    expect(await alert.getAttribute('data-error-code')).toBe('ENVELOPE_KIND_MISMATCH')
    await saveScreenshot(page, 'keys-wrong-file')
  })

  test('encrypts two vectors into ciphertexts', async ({ sandbox: { page, errors } }) => {
    await chooseParams(page)
    await generateKeys(page)
    await openPanel(page, 'Variables')
    await page.getByLabel('Values').fill('1, 2, 3, 4')
    await page.getByRole('button', { name: 'Encode and encrypt' }).click()
    await page.getByTestId('variable-x').waitFor()
    await page.getByLabel('Values').fill('5, 6, 7, 8')
    await page.getByRole('button', { name: 'Encode and encrypt' }).click()
    await page.getByTestId('variable-y').waitFor()
    await expect(page.getByTestId('variable-x').getByTestId('preview').textContent()).resolves.toBe(
      '[1, 2, 3, 4, 0, 0, 0, 0, …]',
    )
    await expect(page.getByTestId('variable-y').textContent()).resolves.toMatch(/bits budget/)
    await saveScreenshot(page, 'variables')
    const x = page.getByTestId('variable-x')
    await x.getByRole('button', { name: 'Inspect x' }).click()
    await x.getByTestId('inspector-parms-id').waitFor()
    await saveElementScreenshot(x, 'inspector')
    await x.getByRole('button', { name: 'Inspect x' }).click()
    expect(errors).toEqual([])
  })

  test('runs multiply → relinearize → rotate and shows the right decrypted values', async ({
    sandbox: { page, errors },
  }) => {
    await chooseParams(page)
    await generateKeys(page)
    await encryptXY(page)
    await openPanel(page, 'Functions')
    await addStep(page, 'Multiply')
    await addStep(page, 'Relinearize')
    await addStep(page, 'Rotate rows')
    const step1 = page.getByTestId('step-1')
    await expect(step1.getByLabel('Step 1 operand a').inputValue()).resolves.toBe('x')
    await expect(step1.getByLabel('Step 1 operand b').inputValue()).resolves.toBe('y')
    await expect(page.getByTestId('step-2').getByLabel('Step 2 operand a').inputValue()).resolves.toBe('r1')
    await expect(page.getByTestId('step-3').getByLabel('Step 3 operand a').inputValue()).resolves.toBe('r2')
    await page.getByRole('button', { name: 'Run all steps' }).click()
    const last = page.getByTestId('step-3').getByTestId('step-result')
    await last.getByText('✓').waitFor({ timeout: 60_000 })
    // x·y = [5, 12, 21, 32]; rotating the rows left by one drops the first slot.
    await expect(page.getByTestId('step-1').getByTestId('preview').textContent()).resolves.toBe(
      '[5, 12, 21, 32, 0, 0, 0, 0, …]',
    )
    await expect(page.getByTestId('step-1').textContent()).resolves.toMatch(/size 3/)
    await expect(page.getByTestId('step-2').textContent()).resolves.toMatch(/size 2/)
    await expect(last.getByTestId('preview').textContent()).resolves.toBe('[12, 21, 32, 0, 0, 0, 0, 0, …]')
    await expect(last.textContent()).resolves.toMatch(/bits budget/)
    await saveScreenshot(page, 'functions')
    const chart = page.getByTestId('noise-chart')
    await chart.getByText('Chart data').click()
    await expect(chart.getByTestId('noise-row-r3').getByTestId('noise-measured').textContent()).resolves.toMatch(
      /^\d+$/,
    )
    await saveElementScreenshot(chart, 'noise-chart')
    await chart.getByText('Chart data').click()
    expect(errors).toEqual([])
  })

  test('stops at the first failing step and says why', async ({ sandbox: { page } }) => {
    await bfvWorkspace(page)
    await page.getByLabel('Operation to add').selectOption({ label: 'Rotate rows' })
    await page.getByRole('button', { name: 'Add step' }).click()
    await page.getByLabel('Step 4 rotation steps').fill('2')
    await expect(page.getByTestId('pipeline-problem').textContent()).resolves.toMatch(/rotation/)
    await page.getByRole('button', { name: 'Run step 4' }).click()
    const error = page.getByTestId('step-4').getByRole('alert')
    await error.waitFor()
    await expect(error.textContent()).resolves.toMatch(/Step 4 \(Rotate rows\)/)
    await page.getByRole('button', { name: 'Remove step 4' }).click()
  })

  test('exports a TypeScript program that prints exactly what the sandbox computed', async ({ sandbox: { page } }) => {
    await bfvWorkspace(page)
    await openPanel(page, 'Code')
    const expected = await page.getByTestId('expected-output').textContent()
    expect(expected).toBe('r3 = [12, 21, 32, 0, 0, 0, 0, 0, ...]')
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('region', { name: 'Generated program' }).getByRole('button', { name: 'Download' }).click(),
    ])
    expect(download.suggestedFilename()).toBe('sealbox-workspace.mts')
    // Run it with this Node (24) and the node-seal 7 the sandbox uses: no sealbox involved.
    const dir = await mkdtemp(join(WEB_ROOT, '.e2e-tmp-'))
    try {
      const file = join(dir, download.suggestedFilename())
      await download.saveAs(file)
      const { stdout } = await run(process.execPath, [file], { timeout: 60_000 })
      expect(stdout.trim()).toBe(expected)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
    await saveScreenshot(page, 'code')
  })

  test('keeps the workspace across a reload, restored into a fresh worker', async ({ sandbox: { page } }) => {
    await bfvWorkspace(page)
    // Reloading is safe once the status bar says the workspace is saved.
    await page.getByText('Saved in this browser').waitFor()
    await page.reload()
    await page.getByTestId('worker-ready').waitFor({ timeout: 60_000 })
    await openPanel(page, 'Variables')
    const r3 = page.getByTestId('variable-r3')
    await expect(r3.getByTestId('preview').textContent()).resolves.toBe('[12, 21, 32, 0, 0, 0, 0, 0, …]')
    // Decrypting again proves the secret key and the ciphertext were loaded back into SEAL.
    await r3.getByRole('button', { name: 'Decrypt and decode all slots' }).click()
    await expect.poll(() => r3.locator('.decoded-all').textContent()).toMatch(/^12, 21, 32, 0, 0/)
  })

  test('runs the pipeline on the real server in pool and inline mode with the same results', async ({
    sandbox: { page },
  }) => {
    await bfvWorkspace(page)
    await connect(page)
    const card = page.getByRole('region', { name: 'Run the pipeline on the server' })
    await card.getByRole('button', { name: 'Upload evaluation keys' }).click()
    await expect.poll(() => card.getByTestId('server-keys').textContent()).toMatch(/^sandbox-[0-9a-f]{12}: .*KiB/)
    const runs = card.getByTestId('remote-run')
    for (const [index, mode] of ['Pool (worker threads)', 'Inline (event loop)'].entries()) {
      await card.getByText(mode).click()
      await card.getByRole('button', { name: 'Run pipeline on server' }).click()
      // Wait for this run's own result (the previous run's card is already there).
      await expect.poll(() => runs.count(), { timeout: 60_000 }).toBe(index + 1)
      await page.waitForFunction(() => !document.querySelector('[data-testid="job-label"]'))
    }
    // Both runs' cards, settled (each run re-renders the list when it lands).
    await expect.poll(() => runs.count(), { timeout: 60_000 }).toBe(2)
    await expect(runs.nth(0).textContent()).resolves.toMatch(/inline/)
    await expect(runs.nth(1).textContent()).resolves.toMatch(/pool/)
    for (const index of [0, 1]) {
      const r3 = runs.nth(index).getByTestId('remote-output-r3')
      await expect(r3.textContent()).resolves.toMatch(/\[12, 21, 32, 0, 0, …\].*same/)
      await expect(runs.nth(index).getByTestId('timing').textContent()).resolves.toMatch(/compute/)
    }
  })

  test('runs a private search against the server and decrypts the top-k', async ({ sandbox: { page, errors } }) => {
    await bfvWorkspace(page)
    await connect(page)
    const card = page.getByRole('region', { name: 'Private search' })
    await card.getByLabel('Database row').fill('42')
    await card.getByRole('button', { name: 'Use database row' }).click()
    await expect.poll(() => card.getByLabel(/Query vector/).inputValue()).toMatch(/^-?\d\.\d{4}(, -?\d\.\d{4}){15}$/)
    await card.getByRole('button', { name: 'Search privately' }).click()
    const result = card.getByTestId('search-result').first()
    await result.waitFor({ timeout: 60_000 })
    const hits = result.getByTestId('search-hits')
    // The query is row 42 itself: the best match is row 42 with cosine ≈ 1.
    await expect(hits.locator('tbody tr').first().textContent()).resolves.toMatch(/^142/)
    await expect(hits.locator('tbody tr').count()).resolves.toBe(5)
    await expect(result.getByTestId('search-oracle').textContent()).resolves.toMatch(/Same ranking/)
    await expect(result.textContent()).resolves.toMatch(/bits of noise budget left/)
    await saveScreenshot(page, 'server')
    expect(errors).toEqual([])
  })

  test('exports the workspace to one file and imports it back', async ({ sandbox: { page, errors } }) => {
    await bfvWorkspace(page)
    await page.getByRole('button', { name: 'Export workspace' }).click()
    await page.getByLabel('Include the secret key').check()
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('dialog').getByRole('button', { name: 'Download' }).click(),
    ])
    expect(download.suggestedFilename()).toMatch(/^sealbox-workspace-bfv-4096-with-secret-key\.json$/)
    await withSavedDownload(download, async (file) => {
      await page.getByRole('button', { name: 'Start over' }).click()
      await page.getByRole('button', { name: 'Remove everything' }).click()
      await page.getByTestId('worker-ready').waitFor()
      await openPanel(page, 'Variables')
      await page.getByText('need encryption parameters first').waitFor()
      await page.getByTestId('import-workspace').setInputFiles(file)
    })
    await page.getByTestId('variable-r3').waitFor()
    await page.getByTestId('worker-ready').waitFor()
    await page.getByTestId('variable-r3').getByRole('button', { name: 'Decrypt r3', exact: true }).click()
    await expect(page.getByTestId('variable-r3_dec').getByTestId('preview').textContent()).resolves.toBe(
      '[12, 21, 32, 0, 0, 0, 0, 0, …]',
    )
    expect(errors).toEqual([])
  })

  test('loads the CKKS example, runs it, and matches he-core in Node within CKKS precision', async ({
    sandbox: { page, errors },
  }) => {
    const expected = await ckksExampleLines()
    await page.getByRole('button', { name: 'Examples' }).click()
    await page.getByRole('button', { name: 'Load the CKKS, n = 8192 example' }).click()
    await openPanel(page, 'Functions')
    const last = page.getByTestId(`step-${EXAMPLE_WORKSPACES.ckks.steps.length}`)
    await last.getByTestId('step-result').getByLabel('done').waitFor({ timeout: 120_000 })
    await saveScreenshot(page, 'functions-ckks')
    await openPanel(page, 'Code')
    const printed = (await page.getByTestId('expected-output').textContent()) ?? ''
    const got = numbersOf(printed)
    const want = numbersOf(expected)
    expect([...got.keys()].sort()).toEqual([...want.keys()].sort())
    for (const [name, values] of got) {
      const reference = want.get(name) ?? []
      expect(values.length).toBe(reference.length)
      values.forEach((value, j) => {
        expect(Math.abs(value - (reference[j] ?? Number.NaN))).toBeLessThan(1e-2)
      })
    }
    expect(errors).toEqual([])
  })

  test('keeps the page responsive during n = 16384 key generation and cancels it', async ({
    sandbox: { page, errors },
  }) => {
    await openPanel(page, 'Parameters')
    await page.getByTestId('scheme-bfv').check({ force: true })
    await page.getByTestId('polyModulusDegree-16384').check({ force: true })
    await page.getByText('SEAL default').click()
    // An empty workspace: the first context, so nothing to discard.
    await page.getByRole('button', { name: 'Create context' }).click()
    await page.getByTestId('params-in-use').getByText('n = 16384').waitFor({ timeout: 90_000 })
    await openPanel(page, 'Keys')
    await page.getByText(/Power-of-two set/).click()
    await page.getByRole('button', { name: 'Generate keys' }).click()
    await page.getByRole('button', { name: 'Generate anyway' }).click()
    const label = page.getByTestId('job-label')
    await label.waitFor()
    // The clock is re-rendered by the page's own thread while SEAL works in the worker.
    const clock = page.locator('.activity-clock')
    const first = await clock.textContent()
    await expect.poll(() => clock.textContent(), { timeout: 10_000 }).not.toBe(first)
    await saveScreenshot(page, 'keys-generating')
    await page.getByRole('button', { name: 'Cancel' }).click()
    await page.getByTestId('worker-ready').waitFor({ timeout: 90_000 })
    await expect(page.getByTestId('key-secretKey').textContent()).resolves.toMatch(/none/)
    expect(errors).toEqual([])
  })
})

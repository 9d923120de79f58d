import { writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { expect, inject } from 'vitest'
import { rawIdentifiers } from '../src/ui/rawIdentifiers.ts'
import { exhaustedWorkspace } from './support/exhaustedWorkspace.ts'
import { saveDebugShot } from './support/layout.ts'
import { openPanel } from './support/openPanel.ts'
import { test } from './support/sandboxTest.ts'
import { openWorkspaceLink, workspaceLink } from './support/workspaceLink.ts'

/*
 * What a new user hit in the first minutes (each test on its own fresh page): the form's
 * rules said in the form's words, every broken rule at once, banners that go when their
 * news does, focus kept after each action, layouts that neither cut nor break, and the
 * way from one panel to the next.
 */

const WIDE = { width: 1400, height: 900 }
const NARROW = { width: 390, height: 844 }
/** The Server panel's executor choices, as the chips read. */
const EXECUTOR_LABELS = ['Server default', 'Pool (worker threads)', 'Inline (event loop)', 'Process (child processes)']

const EXHAUSTED = exhaustedWorkspace()

async function alerts(page: Page): Promise<string[]> {
  return page.getByRole('alert').allTextContents()
}

/** The element focused now, as "tag: name" (body when focus was dropped). */
function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const active = document.activeElement
    if (!active || active === document.body) return 'body'
    return `${active.tagName.toLowerCase()}: ${active.getAttribute('aria-label') ?? active.textContent?.trim() ?? ''}`
  })
}

async function expectFocusKept(page: Page, what: string): Promise<void> {
  // The sandbox hands focus back once the job's rendering is done.
  await expect.poll(() => focused(page), { message: what }).not.toBe('body')
}

test('CKKS: a scale above the primes is refused in words; own primes get a scale that fits them', async ({
  sandbox: { page, errors },
}) => {
  await page.setViewportSize(WIDE)
  await page.getByTestId('scheme-ckks').check({ force: true })
  await page.getByTestId('polyModulusDegree-8192').check({ force: true })
  await page.getByTestId('coeffMode-custom').check({ force: true })
  await page.locator('#coeffBits').fill('30 30 30')
  await page.locator('#scaleBits').fill('40')
  await expect
    .poll(() => alerts(page))
    .toContainEqual(
      expect.stringMatching(/^The scale 2\^40 is larger than the 30-bit primes a rescale divides by.*\(Scale\)$/),
    )
  await expect(page.getByRole('button', { name: 'Create context' }).isDisabled()).resolves.toBe(true)
  await page.locator('#coeffBits').fill('60 40 40 60')
  await page.locator('#scaleBits').fill('')
  await expect.poll(() => page.locator('#scaleBits').getAttribute('placeholder')).toBe('40')
  await expect(alerts(page)).resolves.toEqual([])
  expect(errors).toEqual([])
})

test('"What you get" counts multiplications like the assistant: 2 for BFV [51, 51, 51]', async ({
  sandbox: { page, errors },
}) => {
  await page.setViewportSize(WIDE)
  await expect(page.getByTestId('assistant-suggestion').textContent()).resolves.toMatch(
    /n = 8192, coefficient modulus \[51, 51, 51\].*each of the 2 multiplications/,
  )
  await page.getByTestId('polyModulusDegree-8192').check({ force: true })
  await page.getByTestId('coeffMode-custom').check({ force: true })
  await page.locator('#coeffBits').fill('51 51 51')
  await expect.poll(() => page.getByTestId('fact-multiplications').textContent()).toMatch(/^2 \(noise budget/)
  await expect(page.getByTestId('params-facts').textContent()).resolves.not.toMatch(/Multiplicative levels/)
  expect(errors).toEqual([])
})

test('names fields and ops as the form does, and lists every broken rule at once', async ({
  sandbox: { page, errors },
}) => {
  await page.setViewportSize(WIDE)
  await page.getByTestId('polyModulusDegree-4096').check({ force: true })
  await page.getByTestId('coeffMode-custom').check({ force: true })
  await page.locator('#coeffBits').fill('61 61')
  const reasons = page.getByTestId('params-limit-reasons').locator('li')
  await expect
    .poll(() => reasons.allTextContents())
    .toEqual([
      expect.stringMatching(/^61-bit prime is out of range.*\(Coefficient modulus, prime 1\)$/),
      'Coefficient modulus totals 122 bits; n = 4096 at 128-bit security allows at most 109 (Coefficient modulus)',
    ])
  await page.getByTestId('scheme-ckks').check({ force: true })
  await page.locator('#coeffBits').fill('60 40 60')
  await page.locator('#scaleBits').fill('61')
  await expect.poll(() => alerts(page)).toContainEqual(expect.stringMatching(/The scale is at most 2\^60 \(Scale\)$/))
  const text = (await page.locator('body').textContent()) ?? ''
  expect(text).not.toMatch(/\((coeffModulus|plainModulus|scaleBits)[\w.[\]]*\)/)

  // The assistant (which follows the form's switch to CKKS): too many values does not hide a
  // depth no ring can hold.
  const assistant = page.getByTestId('params-assistant')
  await assistant.getByLabel('Multiplications in a row').fill('30')
  await assistant.getByLabel('Values per ciphertext').fill('100000')
  await expect
    .poll(() => assistant.getByTestId('assistant-problems').locator('li').allTextContents())
    .toEqual([
      expect.stringMatching(/^CKKS holds at most 16384 values per ciphertext \(n = 32768\)/),
      expect.stringMatching(/^No n up to 32768 is large enough/),
    ])
  expect(errors).toEqual([])
})

test('step hints, pre-run warnings and the prediction name ops as the step menu does', async ({
  sandbox: { page, errors },
}) => {
  await page.setViewportSize(WIDE)
  await page.getByTestId('polyModulusDegree-4096').check({ force: true })
  await page.getByRole('button', { name: 'Create context' }).click()
  await page.getByTestId('next-step').waitFor({ timeout: 60_000 })
  await openPanel(page, 'Keys')
  // Every text the busy status bar shows while the keys are made, as it is drawn.
  await page.evaluate(() => {
    const seen: string[] = []
    ;(window as unknown as { jobLabels: string[] }).jobLabels = seen
    new MutationObserver(() => {
      const label = document.querySelector('[data-testid="job-label"]')?.textContent
      if (label && seen.at(-1) !== label) seen.push(label)
    }).observe(document.body, { subtree: true, childList: true, characterData: true })
  })
  // The default keys: relinearization keys, Galois keys for step 1 only — the row swap below lacks its key.
  await page.getByRole('button', { name: 'Generate keys' }).click()
  await page.getByTestId('key-secretKey').getByText('ready').waitFor({ timeout: 60_000 })
  const jobLabels = await page.evaluate(() => (window as unknown as { jobLabels: string[] }).jobLabels)
  expect(jobLabels.join('\n')).toMatch(/serializing the (secret key|public key|relinearization keys|Galois keys)/)
  expect(rawIdentifiers(jobLabels.join('\n'))).toEqual([])
  await openPanel(page, 'Variables')
  await page.getByLabel('Name', { exact: true }).fill('x')
  await page.getByLabel('Values').fill('1, 2, 3')
  await page.getByRole('button', { name: 'Encode and encrypt' }).click()
  await page.getByTestId('variable-x').waitFor()
  await openPanel(page, 'Functions')
  for (const op of ['Rotate rows', 'Rotate columns (swap rows)', 'Square', 'Multiply', 'Multiply']) {
    await page.getByLabel('Operation to add').selectOption({ label: op })
    await page.getByRole('button', { name: 'Add step' }).click()
  }
  const functions = page.locator('[data-panel="functions"]')
  await expect
    .poll(() => page.getByTestId('pipeline-problem').textContent())
    .toMatch(/^Step 2 \(Rotate columns \(swap rows\)\): the Galois keys given have no key for the column rotation/)
  await expect(page.getByTestId('step-2').getByTestId('step-result').textContent()).resolves.toMatch(
    /^Step 2 \(Rotate columns \(swap rows\)\): /,
  )
  await expect(functions.textContent()).resolves.toMatch(/Predicted: Step 4 \(Multiply\) uses up the noise budget/)
  await expect(page.getByTestId('pipeline-needs').textContent()).resolves.toMatch(
    /Galois keys for rotation by 1 and the row swap/,
  )
  expect(rawIdentifiers((await functions.textContent()) ?? '')).toEqual([])

  // And once run: the refusal on the step reads the same way.
  await page.getByRole('button', { name: 'Run all steps' }).click()
  await expect
    .poll(() => page.getByTestId('step-2').getByRole('alert').textContent(), { timeout: 60_000 })
    .toMatch(/^Stopped here\. Step 2 \(Rotate columns \(swap rows\)\): /)
  expect(rawIdentifiers((await functions.textContent()) ?? '')).toEqual([])

  // The assistant's unmet needs name its fields by their labels, its reasons the security level by the form's words.
  await openPanel(page, 'Parameters')
  const assistant = page.getByTestId('params-assistant')
  await expect(assistant.textContent()).resolves.not.toMatch(/tc128/)
  await assistant.getByLabel('Multiplications in a row').fill('30')
  await assistant.getByLabel('Values per ciphertext').fill('100000')
  await expect
    .poll(() => assistant.getByTestId('assistant-problems').locator('li').allTextContents())
    .toEqual([
      expect.stringMatching(/\(Values per ciphertext\)$/),
      expect.stringMatching(/at 128-bit security.*\(Multiplications in a row\)$/),
    ])
  expect(rawIdentifiers((await page.locator('[data-panel="parameters"]').textContent()) ?? '')).toEqual([])
  expect(errors).toEqual([])
})

test('refuses to decrypt an exhausted ciphertext on Variables; Code never calls a result "uploaded"', async ({
  sandbox: { page, errors },
}) => {
  const url = inject('sandboxUrl')
  await page.setViewportSize(WIDE)
  await openWorkspaceLink(page, workspaceLink(url, EXHAUSTED), 5)
  await page.getByRole('button', { name: 'Decrypt anyway (step 5)' }).click()
  await page.getByTestId('step-5').getByTestId('garbage').waitFor({ timeout: 60_000 })
  await openPanel(page, 'Variables')
  await page.getByRole('button', { name: 'Decrypt r5', exact: true }).click()
  await expect
    .poll(() => page.getByTestId('variable-r5').getByRole('alert').textContent())
    .toMatch(/'r5' has no noise budget left, so it would decrypt to garbage/)
  await expect(page.getByTestId('variable-r5_dec').count()).resolves.toBe(0)

  await page.getByRole('button', { name: 'Decrypt r2', exact: true }).click()
  await page.getByTestId('variable-r2_dec').waitFor()
  await openPanel(page, 'Code')
  const leftOut = (await page.getByTestId('left-out').textContent()) ?? ''
  expect(leftOut).toMatch(/Left out: r2_dec — made on the Variables panel from a pipeline result/)
  expect(leftOut).not.toMatch(/uploaded/)
  expect(errors).toEqual([])
})

test('an exhausted result decrypted anyway: its card labels the preview garbage, and its error box says why once', async ({
  sandbox: { page, errors },
}) => {
  const url = inject('sandboxUrl')
  await page.setViewportSize(WIDE)
  await openWorkspaceLink(page, workspaceLink(url, EXHAUSTED), 5)
  await page.getByRole('button', { name: 'Decrypt anyway (step 5)' }).click()
  await page.getByTestId('step-5').getByTestId('garbage').waitFor({ timeout: 60_000 })
  await openPanel(page, 'Variables')
  const card = page.getByTestId('variable-r5')
  await expect(card.getByTestId('preview-garbage').textContent()).resolves.toMatch(
    /^Garbage: no noise budget left, so these decrypted numbers are wrong \[/,
  )
  // A result with budget left shows its numbers plainly.
  await expect(page.getByTestId('variable-r4').getByTestId('preview-garbage').count()).resolves.toBe(0)

  // Decrypting it is refused, in one box that gives its reason and its advice once.
  for (const button of ['Decrypt r5', 'Decrypt and decode all slots of r5']) {
    await card.getByRole('button', { name: button, exact: true }).click()
    const alert = card.getByRole('alert')
    await alert.waitFor()
    const text = (await alert.textContent()) ?? ''
    expect(text.match(/fewer multiplications/g), text).toHaveLength(1)
    expect(text.match(/noise budget/g), text).toHaveLength(1)
    await alert.getByRole('button', { name: /^Dismiss/ }).click()
  }
  await expect(page.locator('[data-testid="variable-r5_dec"]').count()).resolves.toBe(0)
  expect(errors).toEqual([])
})

/**
 * Galois keys too large to keep outside the worker (27 rotation steps at n = 8192, about
 * 68 MiB), then a reload: the restored worker has every key but those, and the banner
 * says so. Returns the banner.
 */
async function loseGaloisKeysAcrossRestart(page: Page) {
  await page.getByTestId('polyModulusDegree-8192').check({ force: true })
  await page.getByRole('button', { name: 'Create context' }).click()
  await page.getByTestId('next-step').waitFor({ timeout: 60_000 })
  await openPanel(page, 'Keys')
  await page.getByLabel('Rotation steps').fill(Array.from({ length: 27 }, (_, i) => i + 1).join(', '))
  await page.getByRole('button', { name: 'Generate keys' }).click()
  await page
    .getByRole('alertdialog', { name: 'Generate large keys?' })
    .getByRole('button', { name: 'Generate anyway' })
    .click()
  const galois = page.getByTestId('key-galoisKeys')
  await galois.getByText('ready').waitFor({ timeout: 120_000 })
  await expect(galois.textContent()).resolves.toMatch(/kept in this tab only/)
  // Reloading is safe once the status bar says the workspace is saved.
  await page.getByText('Saved in this browser').waitFor()
  await page.reload()
  await page.getByTestId('worker-ready').waitFor({ timeout: 60_000 })
  const banner = page.getByRole('status').filter({ hasText: /^Not kept across the restart/ })
  await banner.waitFor()
  return banner
}

test('the restart banner names lost keys as the Keys panel does: "Galois keys"', async ({
  sandbox: { page, errors },
}) => {
  await page.setViewportSize(WIDE)
  const banner = await loseGaloisKeysAcrossRestart(page)
  const text = (await banner.locator('span').textContent()) ?? ''
  expect(text).toBe('Not kept across the restart (regenerate or upload them again): Galois keys.')
  expect(rawIdentifiers(text)).toEqual([])
  // What it says is so: the other keys came back, the Galois keys did not.
  await openPanel(page, 'Keys')
  await page.getByTestId('key-relinKeys').getByText('ready').waitFor()
  await expect(page.getByTestId('key-galoisKeys').getByText('ready').count()).resolves.toBe(0)
  expect(errors).toEqual([])
})

test('drops the restart banner about lost Galois keys once new parameters are in use', async ({
  sandbox: { page, errors },
}) => {
  await page.setViewportSize(WIDE)
  const banner = await loseGaloisKeysAcrossRestart(page)
  await openPanel(page, 'Parameters')
  await page.getByTestId('polyModulusDegree-4096').check({ force: true })
  await page.getByRole('button', { name: 'Use these parameters' }).click()
  await page
    .getByRole('alertdialog', { name: 'Discard keys and variables?' })
    .getByRole('button', { name: /^Discard and use new parameters/ })
    .click()
  await expect.poll(() => page.getByTestId('params-in-use').textContent(), { timeout: 60_000 }).toMatch(/n = 4096/)
  await expect(banner.count()).resolves.toBe(0)
  expect(errors).toEqual([])
})

test('drops the "Opened a shared workspace" banner on Start over', async ({ sandbox: { page, errors } }) => {
  const url = inject('sandboxUrl')
  await page.setViewportSize(WIDE)
  await openWorkspaceLink(page, workspaceLink(url, EXHAUSTED), 5)
  const banner = page.getByText(/^Opened a shared workspace/)
  await banner.waitFor()
  await page.getByRole('button', { name: 'Start over' }).click()
  await page.getByRole('dialog').getByRole('button', { name: 'Remove everything' }).click()
  // Start over clears the stored workspace first, so the old worker's "ready" can still be on
  // screen here: wait for the banner to go, then for the new worker.
  await banner.waitFor({ state: 'detached', timeout: 60_000 })
  await page.getByTestId('worker-ready').waitFor({ timeout: 60_000 })
  await expect(banner.count()).resolves.toBe(0)
  expect(errors).toEqual([])
})

test("a link's refusal and a step's scale mismatch name steps and fields as the step menu and the step card do", async ({
  sandbox: { page, errors },
}) => {
  const url = inject('sandboxUrl')
  await page.setViewportSize(WIDE)
  // A link that relinearizes but asks for no relinearization keys is refused, in the step menu's words.
  await page.goto(
    workspaceLink(url, {
      version: 1,
      params: { scheme: 'bfv', polyModulusDegree: 4096 },
      keys: { relin: false },
      variables: [{ name: 'x', kind: 'ciphertext', values: [1, 2] }],
      steps: [
        { op: 'multiply', a: 'x', b: 'x', out: 'xx' },
        { op: 'relinearize', a: 'xx', out: 'r' },
      ],
      print: ['r'],
    }),
  )
  const banner = page.locator('.banner').getByText(/^The shared workspace could not be rebuilt/)
  await banner.waitFor({ timeout: 60_000 })
  const refusal = (await banner.textContent()) ?? ''
  expect(refusal).toMatch(/: Step 2 \(Relinearize\): needs relinearization keys/)
  expect(rawIdentifiers(refusal)).toEqual([])

  // CKKS: adding x² (scale 2^80) to x (2^40) stops with advice naming the step's "align levels" checkbox.
  await page.goto('about:blank')
  await openWorkspaceLink(
    page,
    workspaceLink(url, {
      version: 1,
      params: { scheme: 'ckks', polyModulusDegree: 8192 },
      variables: [{ name: 'x', kind: 'ciphertext', values: [1, 2] }],
      steps: [
        { op: 'square', a: 'x', out: 'xx' },
        { op: 'add', a: 'xx', b: 'x', out: 's' },
      ],
      print: ['s'],
    }),
    2,
  )
  const stopped = (await page.getByTestId('step-2').getByRole('alert').textContent()) ?? ''
  expect(stopped).toMatch(/^Stopped here\. Step 2 \(Add\): .*tick “align levels” on the step/)
  expect(rawIdentifiers(stopped)).toEqual([])
  expect(errors).toEqual([])
})

test('BFV results that wrapped around the plain modulus t are marked with the exact values, not ✓', async ({
  sandbox: { page, errors },
}) => {
  const url = inject('sandboxUrl')
  await page.setViewportSize(WIDE)
  await page.goto(
    workspaceLink(url, {
      version: 1,
      params: { scheme: 'bfv', polyModulusDegree: 4096 },
      variables: [{ name: 'x', kind: 'ciphertext', values: [1000, 2000] }],
      steps: [
        { op: 'multiply', a: 'x', b: 'x', out: 'xx' },
        { op: 'add', a: 'x', b: 'x', out: 'twice' },
      ],
      print: ['xx', 'twice'],
    }),
  )
  const first = page.getByTestId('step-1')
  const warning = first.getByTestId('step-wrapped')
  await warning.waitFor({ timeout: 120_000 })
  const text = (await warning.textContent()) ?? ''
  const match = text.match(
    /^Wrapped around\. These values wrapped around the plain modulus t = (\d+) in 2 slots: the exact results are 1000000, 4000000; use a larger plain modulus\.$/,
  )
  expect(match, text).not.toBeNull()
  // What it says is so: 1000² is past (t − 1)/2, and the decrypted value is 1000² modulo t, centred.
  const t = BigInt(match?.[1] ?? '0')
  expect(1000000n > (t - 1n) / 2n).toBe(true)
  const centred = (v: bigint) => {
    const r = ((v % t) + t) % t
    return r > (t - 1n) / 2n ? r - t : r
  }
  await expect(first.getByTestId('step-result').textContent()).resolves.toContain(String(centred(1000000n)))
  await expect(first.getByLabel('done').count()).resolves.toBe(0)
  await first.getByRole('img', { name: 'wrapped around the plain modulus' }).waitFor()
  // x + x fits: its ✓ stays, with no warning.
  const second = page.getByTestId('step-2')
  await second.getByTestId('step-result').getByLabel('done').waitFor()
  await expect(second.getByTestId('step-wrapped').count()).resolves.toBe(0)
  expect(errors).toEqual([])
})

test('one main landmark, and focus kept after Create context, Generate keys, Encode and encrypt, Add step, Run all', async ({
  sandbox: { page, errors },
}) => {
  await page.setViewportSize(WIDE)
  await expect(page.locator('main').count()).resolves.toBe(1)
  await expect(page.locator('main[role]').count()).resolves.toBe(0)
  await expect(page.locator('main [role="tabpanel"]').count()).resolves.toBe(1)

  await page.getByTestId('polyModulusDegree-4096').check({ force: true })
  await page.getByRole('button', { name: 'Create context' }).focus()
  await page.keyboard.press('Enter')
  await page.getByTestId('next-step').waitFor({ timeout: 60_000 })
  await expectFocusKept(page, 'after Create context')
  await expect(focused(page)).resolves.toBe('a: Go to Keys →')
  await page.keyboard.press('Enter')
  await page.locator('[data-panel="keys"]').waitFor()

  await page.getByRole('button', { name: 'Generate keys' }).focus()
  await page.keyboard.press('Enter')
  await page.getByTestId('key-secretKey').getByText('ready').waitFor({ timeout: 60_000 })
  await expectFocusKept(page, 'after Generate keys')

  await openPanel(page, 'Variables')
  await page.getByLabel('Name', { exact: true }).fill('x')
  await page.getByLabel('Values').fill('1, 2, 3')
  await page.getByRole('button', { name: 'Encode and encrypt' }).focus()
  await page.keyboard.press('Enter')
  await page.getByTestId('variable-x').waitFor()
  await expectFocusKept(page, 'after Encode and encrypt')

  await openPanel(page, 'Functions')
  await page.getByLabel('Operation to add').selectOption({ label: 'Square' })
  await page.getByRole('button', { name: 'Add step' }).focus()
  await page.keyboard.press('Enter')
  await page.getByTestId('step-1').waitFor()
  await expect(focused(page)).resolves.toMatch(/^select: Operation to add/)
  // The operand menu says what "ciphertext" is, rather than "(ct)".
  await expect(page.getByLabel('Step 1 operand a').locator('option').allTextContents()).resolves.toContain(
    'x (ciphertext)',
  )

  await page.getByRole('button', { name: 'Run all steps' }).focus()
  await page.keyboard.press('Enter')
  await page.getByTestId('step-1').getByTestId('step-result').getByLabel('done').waitFor({ timeout: 60_000 })
  await expectFocusKept(page, 'after Run all steps')
  expect(errors).toEqual([])
})

test('says "not a number" for words in a query vector, and what to choose for a file that is not a workspace', async ({
  sandbox: { page, errors },
}) => {
  await page.setViewportSize(WIDE)
  const file = join(tmpdir(), `not-a-workspace-${process.pid}.json`)
  await writeFile(file, 'hello, this is not JSON')
  await page.getByTestId('import-workspace').setInputFiles(file)
  const notice = page.getByRole('alert').filter({ hasText: 'Could not import the workspace' })
  await notice.waitFor()
  await expect(notice.textContent()).resolves.toMatch(/Choose a \.json file made by Export workspace/)
  await expect(notice.textContent()).resolves.not.toMatch(/fix the named field/)

  await openPanel(page, 'Server')
  const connection = page.getByRole('form', { name: 'Server connection' })
  await connection.getByRole('button', { name: 'Connect', exact: true }).click()
  await connection.getByTestId('server-connection').getByText('Ready').waitFor({ timeout: 60_000 })
  const search = page.getByRole('region', { name: 'Private search' })
  await search.getByLabel(/Query vector/).fill('a, b')
  await expect(search.getByRole('alert').textContent()).resolves.toBe('Component 1 ("a") is not a number.')
  expect(errors).toEqual([])
})

test('nothing cut or broken: chips, sidebar subtitles, hex bytes, and every panel tab in view at 390 px', async ({
  sandbox: { page, errors },
}) => {
  const url = inject('sandboxUrl')
  await page.setViewportSize(WIDE)
  await openWorkspaceLink(
    page,
    workspaceLink(url, { ...EXHAUSTED, steps: EXHAUSTED.steps.slice(0, 2), print: ['r2'] }),
    2,
  )
  // Sidebar subtitles read whole at 1400 px.
  const cut = await page
    .locator('.panel-tab-blurb')
    .evaluateAll((blurbs) => blurbs.filter((b) => b.scrollWidth > b.clientWidth + 1).map((b) => b.textContent))
  expect(cut).toEqual([])

  // Hex dump: a line break never falls inside a byte.
  await openPanel(page, 'Variables')
  await page.getByRole('button', { name: 'Inspect x' }).click()
  const split = await page.getByTestId('inspector-dump').evaluate((dump) => {
    const text = dump.firstChild
    if (!text || text.nodeType !== Node.TEXT_NODE) return ['no text']
    const bad: string[] = []
    const content = text.textContent ?? ''
    for (const match of content.matchAll(/[0-9a-f]{2}/g)) {
      const range = document.createRange()
      range.setStart(text, match.index)
      range.setEnd(text, match.index + 2)
      const rects = [...range.getClientRects()].filter((r) => r.width > 0)
      if (rects.length > 1) bad.push(`${match[0]} at ${match.index}`)
    }
    return bad
  })
  expect(split).toEqual([])

  await page.setViewportSize(NARROW)
  // Every tab in view (no hidden sideways strip).
  const tabs = await page
    .getByRole('tab')
    .evaluateAll((all) => all.map((tab) => ({ name: tab.textContent, right: tab.getBoundingClientRect().right })))
  expect(tabs).toHaveLength(6)
  for (const tab of tabs) expect(tab.right, tab.name ?? '').toBeLessThanOrEqual(390)

  // Wrapped choice rows keep a whole border around each choice (n = 32768, Galois keys).
  for (const panel of ['Parameters', 'Keys']) {
    await openPanel(page, panel)
    const chips = await page.locator('.segmented-item label').evaluateAll((labels) =>
      labels
        .filter((label) => label.getBoundingClientRect().width > 0)
        .map((label) => {
          const style = getComputedStyle(label)
          return {
            text: label.textContent,
            border: [style.borderTopWidth, style.borderRightWidth, style.borderBottomWidth, style.borderLeftWidth],
            right: label.getBoundingClientRect().right,
          }
        }),
    )
    expect(chips.length).toBeGreaterThan(3)
    for (const chip of chips) {
      expect({ text: chip.text, border: chip.border }).toEqual({
        text: chip.text,
        border: ['1px', '1px', '1px', '1px'],
      })
      expect(chip.right, chip.text ?? '').toBeLessThanOrEqual(390)
    }
  }
  expect(errors).toEqual([])
})

test('executor choices on the Server panel at 1400 px: each chip whole, on one line, inside its card', async ({
  sandbox: { page, errors },
}) => {
  await page.setViewportSize(WIDE)
  await openPanel(page, 'Server')
  const connection = page.getByRole('form', { name: 'Server connection' })
  await connection.getByRole('button', { name: 'Connect', exact: true }).click()
  await connection.getByTestId('server-connection').getByText('Ready').waitFor({ timeout: 60_000 })
  await saveDebugShot(page, 'server executor rows 1400')
  // Both rows: the pipeline's and the private search's.
  for (const name of ['executor', 'search-executor']) {
    const row = page.getByRole('radiogroup').filter({ has: page.getByTestId(`${name}-default`) })
    const chips = await row.evaluate((group) => {
      const card = group.closest('.card')?.getBoundingClientRect()
      return [...group.querySelectorAll('.segmented-item label')].map((label) => {
        const style = getComputedStyle(label)
        const box = label.getBoundingClientRect()
        // Lines of the label's own text: a chip whose words wrap has a broken outline.
        const range = document.createRange()
        range.selectNodeContents(label)
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)))
        return {
          text: label.textContent,
          border: [style.borderTopWidth, style.borderRightWidth, style.borderBottomWidth, style.borderLeftWidth],
          lines: lines.size,
          inCard: card !== undefined && box.left >= card.left && box.right <= card.right,
          top: Math.round(box.top),
        }
      })
    })
    expect(chips.map((chip) => chip.text)).toEqual(EXECUTOR_LABELS)
    for (const { top: _top, ...chip } of chips) {
      expect(chip, name).toEqual({ text: chip.text, border: ['1px', '1px', '1px', '1px'], lines: 1, inCard: true })
    }
    // At this width the four choices fit one row: no chip wraps to a second.
    expect(new Set(chips.map((chip) => chip.top)).size, name).toBe(1)
  }
  expect(errors).toEqual([])
})

test('first five minutes: "Suggest parameters" above the fold, and after Create context a way on to Keys', async ({
  sandbox: { page, errors },
}) => {
  await page.setViewportSize(WIDE)
  const suggest = page.getByRole('button', { name: 'Suggest parameters' })
  const box = await suggest.boundingBox()
  expect(box && box.y + box.height <= WIDE.height).toBe(true)
  await suggest.click()
  await expect(focused(page)).resolves.not.toBe('body')
  await expect(
    page.evaluate(() => document.querySelector('[data-testid="params-assistant"]')?.contains(document.activeElement)),
  ).resolves.toBe(true)

  await page.getByRole('button', { name: 'Create context' }).click()
  const next = page.getByTestId('next-step')
  await next.waitFor({ timeout: 60_000 })
  await next.getByRole('link', { name: 'Go to Keys →' }).click()
  await page.locator('[data-panel="keys"]').waitFor()
  expect(errors).toEqual([])
})

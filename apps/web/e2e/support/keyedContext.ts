import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { openPanel } from './openPanel.ts'

/** The context a test builds: the form's default (BFV, n = 4096) unless it says otherwise. */
export interface ContextChoice {
  scheme?: 'bfv' | 'bgv' | 'ckks'
  polyModulusDegree?: 4096 | 8192 | 16384
}

/**
 * The set-up most sandbox tests share: pick the scheme and n, Create context, then on
 * Keys generate every key and wait until all four are ready. Leaves the page on Keys.
 */
export async function createContextWithKeys(page: Page, choice: ContextChoice = {}): Promise<void> {
  if (choice.scheme) await page.getByTestId(`scheme-${choice.scheme}`).check({ force: true })
  if (choice.polyModulusDegree) {
    await page.getByTestId(`polyModulusDegree-${choice.polyModulusDegree}`).check({ force: true })
  }
  await page.getByRole('button', { name: 'Create context' }).click()
  await page.getByTestId('params-in-use').waitFor({ timeout: 60_000 })
  await openPanel(page, 'Keys')
  await page.getByRole('button', { name: 'Generate keys' }).click()
  for (const key of ['secretKey', 'publicKey', 'relinKeys', 'galoisKeys']) {
    await page.getByTestId(`key-${key}`).getByText('ready').waitFor({ timeout: 60_000 })
  }
}

/** One typed variable: its name, the numbers as typed, and its kind (ciphertext unless said). */
export type TypedVariable = readonly [name: string, values: string, kind?: 'ciphertext' | 'plaintext']

/** Types each variable on the Variables panel and waits until it is listed. Leaves the page on Variables. */
export async function addVariables(page: Page, variables: readonly TypedVariable[]): Promise<void> {
  await openPanel(page, 'Variables')
  for (const [name, values, kind = 'ciphertext'] of variables) {
    await page.getByLabel('Name', { exact: true }).fill(name)
    await page.getByTestId(`kind-${kind}`).check({ force: true })
    await page.getByLabel('Values').fill(values)
    await page
      .getByRole('button', { name: kind === 'ciphertext' ? 'Encode and encrypt' : 'Encode', exact: true })
      .click()
    await page.getByTestId(`variable-${name}`).waitFor({ timeout: 60_000 })
  }
}

/**
 * Runs `use` with a fresh temporary folder (downloads land there), removed afterwards;
 * under `parent` (e.g. the web app, so an exported program finds node-seal) when given.
 */
export async function inTempDir<T>(
  use: (dir: string) => Promise<T>,
  { parent = tmpdir(), prefix = 'sealbox-e2e-' }: { parent?: string; prefix?: string } = {},
): Promise<T> {
  const dir = await mkdtemp(join(parent, prefix))
  try {
    return await use(dir)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

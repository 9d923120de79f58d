import type { WorkspaceInput } from '@sealbox/he-core'
import type { Page } from 'playwright-core'
import { expect, inject } from 'vitest'
import { test } from './support/sandboxTest.ts'
import { openWorkspaceLink, workspaceLink } from './support/workspaceLink.ts'

/*
 * The CKKS error chart measures every bar against what the user typed: a product's
 * error is |decrypted − x·y| with x and y the typed numbers, so it carries its inputs'
 * encoding error (it was measured against the product of the decrypted inputs, and
 * looked some thousand times more precise than the inputs it was made of).
 */

const X = Array.from({ length: 16 }, (_, i) => 1000.3 + 7.1 * i)
const Y = Array.from({ length: 16 }, (_, i) => -900.7 + 11.3 * i)

const SPEC: WorkspaceInput = {
  version: 1,
  params: { scheme: 'ckks', polyModulusDegree: 8192 },
  variables: [
    { name: 'x', kind: 'ciphertext', values: X },
    { name: 'y', kind: 'ciphertext', values: Y },
  ],
  steps: [
    { op: 'multiply', a: 'x', b: 'y', out: 'xy' },
    { op: 'relinearize', a: 'xy', out: 'xyRelin' },
  ],
  print: ['xyRelin'],
}

/** The decrypted first slots of a variable as the page saved them (full doubles, not the 4 decimals shown). */
function savedPreview(page: Page, name: string): Promise<number[] | undefined> {
  return page.evaluate(
    (wanted) =>
      new Promise<number[] | undefined>((resolve, reject) => {
        const open = indexedDB.open('sealbox')
        open.onerror = () => reject(open.error)
        open.onsuccess = () => {
          const get = open.result.transaction('workspace', 'readonly').objectStore('workspace').get('current')
          get.onerror = () => reject(get.error)
          get.onsuccess = () => {
            const state = get.result as { variables?: Array<{ name: string; preview?: number[] }> } | undefined
            open.result.close()
            resolve(state?.variables?.find((v) => v.name === wanted)?.preview)
          }
        }
      }),
    name,
  )
}

test('CKKS chart: a product is measured against the product of the typed numbers', async ({
  sandbox: { page, errors },
}) => {
  await openWorkspaceLink(page, workspaceLink(inject('sandboxUrl'), SPEC), SPEC.steps.length)
  const chart = page.getByTestId('noise-chart')
  await chart.getByText('Chart data').click()
  const cells = chart.getByTestId('noise-error')
  // Rows: x, y, then the two steps; every one measured.
  await expect.poll(async () => (await cells.allTextContents()).filter((t) => t !== '—').length).toBe(4)

  await expect.poll(async () => (await savedPreview(page, 'xyRelin'))?.length ?? 0).toBe(16)
  const relin = await savedPreview(page, 'xyRelin')
  const x = (await savedPreview(page, 'x')) ?? []
  // Oracle: the exact computation on the typed values, over the slots the page keeps.
  const productFloor = Math.max(...(relin ?? []).map((v, i) => Math.abs(v - (X[i] ?? 0) * (Y[i] ?? 0))))
  const inputFloor = Math.max(...x.map((v, i) => Math.abs(v - (X[i] ?? 0))))
  expect(productFloor).toBeGreaterThan(0)

  const [xError, , productError, relinError] = (await cells.allTextContents()).map(Number)
  // Shown to two significant digits; slots past the 16 typed ones hold 0 and err far less.
  expect(xError).toBeGreaterThanOrEqual(inputFloor * 0.95)
  for (const shown of [productError, relinError]) {
    expect(shown).toBeGreaterThanOrEqual(productFloor * 0.95)
    expect(shown).toBeLessThanOrEqual(productFloor * 1.05)
  }
  // The product of two ~1000 inputs is never shown as more precise than the inputs themselves.
  expect(productError).toBeGreaterThan(xError ?? 0)
  await expect(chart.getByRole('img').getAttribute('aria-label')).resolves.toMatch(
    /^Correct decimal digits per input and step against the exact answer on the numbers typed/,
  )
  expect(errors).toEqual([])
}, 240_000)

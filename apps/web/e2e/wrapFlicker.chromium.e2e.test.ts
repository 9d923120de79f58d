import type { WorkspaceInput } from '@sealbox/he-core'
import { expect, inject } from 'vitest'
import { test } from './support/sandboxTest.ts'
import { openWorkspaceLink, workspaceLink } from './support/workspaceLink.ts'

/*
 * A wrapped result's mark during Run all: once the exact comparison has said ⚠ for a
 * result, later steps finishing must not turn it back to ✓ (it flickered ⚠→✓→⚠ at every
 * later step, its "wrapped around" note vanishing and returning). Recorded with a
 * MutationObserver over the whole run, not sampled.
 */

/** BFV, t of 20 bits (about ±524 288): x² wraps at 1000², 2000²; the adds after it do not. */
const WRAPPING: WorkspaceInput = {
  version: 1,
  params: { scheme: 'bfv', polyModulusDegree: 4096 },
  variables: [{ name: 'x', kind: 'ciphertext', values: [1000, 2000, 3] }],
  steps: [
    { op: 'multiply', a: 'x', b: 'x', out: 'r1' },
    { op: 'add', a: 'x', b: 'x', out: 'r2' },
    { op: 'add', a: 'r2', b: 'x', out: 'r3' },
    { op: 'add', a: 'r3', b: 'x', out: 'r4' },
    { op: 'add', a: 'r4', b: 'x', out: 'r5' },
    { op: 'add', a: 'r5', b: 'x', out: 'r6' },
  ],
  print: ['r1'],
}

test('a wrapped result keeps its ⚠ and its note while the later steps of Run all finish', async ({
  sandbox: { page, errors },
}) => {
  await openWorkspaceLink(page, workspaceLink(inject('sandboxUrl'), WRAPPING), 6)
  const step1 = page.getByTestId('step-1')
  await step1.getByTestId('step-wrapped').waitFor({ timeout: 60_000 })

  // Run again (the step-1 result is made anew), recording step 1's mark and note at every DOM change.
  await page.evaluate(() => {
    const log: string[] = []
    const state = () => {
      const card = document.querySelector('[data-testid="step-1"]')
      const mark = card?.querySelector('.step-wrap-mark') ? '⚠' : card?.querySelector('.step-check') ? '✓' : '·'
      const note = card?.querySelector('[data-testid="step-wrapped"]') ? 'note' : 'none'
      return `${mark} ${note}`
    }
    const observer = new MutationObserver(() => {
      const now = state()
      if (log.at(-1) !== now) log.push(now)
    })
    observer.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true })
    ;(window as unknown as { wrapLog: string[] }).wrapLog = log
  })
  await page.getByRole('button', { name: 'Run all steps' }).click()
  await page.getByTestId('step-6').getByTestId('step-result').getByLabel('done').waitFor({ timeout: 120_000 })
  // The run is over when the last comparison is in: step 1 shows ⚠ with its note again.
  await step1.getByTestId('step-wrapped').waitFor({ timeout: 60_000 })
  const log = await page.evaluate(() => (window as unknown as { wrapLog: string[] }).wrapLog)
  // Made anew, step 1 may show ✓ once until its comparison arrives; after the first ⚠, never ✓ again.
  const firstWrap = log.findIndex((entry) => entry.startsWith('⚠'))
  expect(firstWrap, log.join(' → ')).toBeGreaterThanOrEqual(0)
  expect(
    log.slice(firstWrap).filter((entry) => !entry.startsWith('⚠')),
    log.join(' → '),
  ).toEqual([])
  expect(log.at(-1)).toBe('⚠ note')
  expect(errors).toEqual([])
})

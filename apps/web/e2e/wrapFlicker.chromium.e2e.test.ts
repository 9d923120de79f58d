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
  const runAll = page.getByRole('button', { name: 'Run all steps' })
  // The link's own run must be over (every step done, the button enabled) before recording starts.
  await page.getByTestId('step-6').getByTestId('step-result').getByLabel('done').waitFor({ timeout: 120_000 })
  await step1.getByTestId('step-wrapped').waitFor({ timeout: 60_000 })
  await expect.poll(() => runAll.isEnabled(), { timeout: 60_000 }).toBe(true)

  // Run again (the step-1 result is made anew), recording step 1's mark and note at every DOM
  // change, and whether the run has started (the button went disabled).
  await page.evaluate(() => {
    const state = () => {
      const card = document.querySelector('[data-testid="step-1"]')
      const mark = card?.querySelector('.step-wrap-mark') ? '⚠' : card?.querySelector('.step-check') ? '✓' : '·'
      const note = card?.querySelector('[data-testid="step-wrapped"]') ? 'note' : 'none'
      return `${mark} ${note}`
    }
    const button = [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'Run all steps')
    const record = { log: [state()], started: false, button }
    const observer = new MutationObserver(() => {
      if (button?.disabled) record.started = true
      const now = state()
      if (record.log.at(-1) !== now) record.log.push(now)
    })
    observer.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true })
    ;(window as unknown as { wrapRecord: typeof record }).wrapRecord = record
  })
  await runAll.click()
  // The run is over when it has started, the button is enabled again and step 1 shows its note.
  await page.waitForFunction(
    () => {
      const record = (window as unknown as { wrapRecord: { started: boolean; button?: HTMLButtonElement } }).wrapRecord
      const note = document.querySelector('[data-testid="step-1"] [data-testid="step-wrapped"]')
      return record.started && record.button?.disabled === false && note !== null
    },
    undefined,
    { timeout: 120_000 },
  )
  const log = await page.evaluate(() => (window as unknown as { wrapRecord: { log: string[] } }).wrapRecord.log)
  // The log opens on the first run's ⚠. Made anew, step 1 may show · or ✓ until its comparison
  // arrives; after the new run's first ⚠, never anything else.
  const madeAnew = log.findIndex((entry) => !entry.startsWith('⚠'))
  if (madeAnew >= 0) {
    const rerun = log.slice(madeAnew)
    const firstWrap = rerun.findIndex((entry) => entry.startsWith('⚠'))
    expect(firstWrap, log.join(' → ')).toBeGreaterThanOrEqual(0)
    expect(
      rerun.slice(firstWrap).filter((entry) => !entry.startsWith('⚠')),
      log.join(' → '),
    ).toEqual([])
  }
  expect(log.at(-1)).toBe('⚠ note')
  expect(errors).toEqual([])
})

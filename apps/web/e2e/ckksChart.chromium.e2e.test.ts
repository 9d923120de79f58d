import { EXAMPLE_WORKSPACES } from '@sealbox/he-core'
import { expect, inject } from 'vitest'
import { test } from './support/sandboxTest.ts'
import { openWorkspaceLink, workspaceLink } from './support/workspaceLink.ts'

/*
 * The CKKS error chart of the CKKS example: every input has its bar (its encoding error
 * against the numbers typed), and no two labels under the bars overlap.
 */

test('CKKS chart: a bar for every input and step, labels clear of each other', async ({
  sandbox: { page, errors },
}) => {
  const url = inject('sandboxUrl')
  await page.setViewportSize({ width: 1400, height: 900 })
  const example = EXAMPLE_WORKSPACES.ckks
  await openWorkspaceLink(page, workspaceLink(url, example), example.steps.length)
  const chart = page.getByTestId('noise-chart')
  const inputs = example.variables.filter((v) => v.kind === 'ciphertext').length
  const bars = chart.locator('g.noise-bar')
  await expect.poll(() => bars.count(), { timeout: 60_000 }).toBe(inputs + example.steps.length)
  await expect
    .poll(() => bars.evaluateAll((groups) => groups.filter((g) => g.querySelector('rect.noise-measured')).length), {
      timeout: 60_000,
    })
    .toBe(inputs + example.steps.length)
  const overlaps = await chart.locator('svg').evaluate((svg) => {
    const found: string[] = []
    const rows = [...svg.querySelectorAll('text.noise-label')].map((t) => ({
      text: t.textContent ?? '',
      box: t.getBoundingClientRect(),
    }))
    for (const [i, a] of rows.entries()) {
      for (const b of rows.slice(i + 1)) {
        const apart =
          a.box.right <= b.box.left ||
          b.box.right <= a.box.left ||
          a.box.bottom <= b.box.top ||
          b.box.bottom <= a.box.top
        if (!apart) found.push(`${a.text} × ${b.text}`)
      }
    }
    return found
  })
  expect(overlaps).toEqual([])
  expect(errors).toEqual([])
})

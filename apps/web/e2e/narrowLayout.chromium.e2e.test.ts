import { EXAMPLE_WORKSPACES } from '@sealbox/he-core'
import type { Page } from 'playwright-core'
import { expect, inject } from 'vitest'
import { runAxe } from './support/axe.ts'
import { expectNoHorizontalOverflow, saveDebugShot } from './support/layout.ts'
import { openPanel } from './support/openPanel.ts'
import { test } from './support/sandboxTest.ts'
import { saveScreenshot } from './support/screenshots.ts'
import { openWorkspaceLink, workspaceLink } from './support/workspaceLink.ts'

/*
 * The status bar during long work and the key cards, at a phone's 390 px and a desktop's
 * 1400 px: every text readable whole, no control drawn over another.
 */

const WIDE = { width: 1400, height: 900 }
const NARROW = { width: 390, height: 844 }

/** Box and whether the text is cut (ellipsis or clipped), measured in one frame. */
interface Measured {
  name: string
  x: number
  y: number
  width: number
  height: number
  cut: boolean
}

function intersects(a: Measured, b: Measured): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
}

/** Every pair of boxes that intersect, by name. */
function overlaps(boxes: Measured[]): string[] {
  const found: string[] = []
  for (const [i, a] of boxes.entries()) {
    for (const b of boxes.slice(i + 1)) if (intersects(a, b)) found.push(`${a.name} × ${b.name}`)
  }
  return found
}

/** Measures the status bar's parts in the first frame that shows a running job with Cancel. */
async function measureBusyBar(page: Page): Promise<Measured[]> {
  const handle = await page.waitForFunction(
    () => {
      const bar = document.querySelector('.activity-bar')
      const label = bar?.querySelector('[data-testid="job-label"]')
      const cancel = [...(bar?.querySelectorAll('button') ?? [])].find((b) => b.textContent === 'Cancel')
      if (!bar || !label || !cancel) return false
      const parts: Array<[string, Element | null | undefined]> = [
        ['operation', label],
        ['clock', bar.querySelector('.activity-clock')],
        ['heap', bar.querySelector('[data-testid="heap-size"]')],
        ['saved', bar.querySelector('.save-state')],
        ['cancel', cancel],
      ]
      return parts.map(([name, element]) => {
        const box = element?.getBoundingClientRect()
        return {
          name,
          x: box?.x ?? -1,
          y: box?.y ?? -1,
          width: box?.width ?? 0,
          height: box?.height ?? 0,
          cut: element ? element.scrollWidth > element.clientWidth + 1 : true,
        }
      })
    },
    undefined,
    { timeout: 60_000, polling: 'raf' },
  )
  return (await handle.jsonValue()) as Measured[]
}

test('at 390 px the busy status bar shows the operation, clock, heap and Cancel apart and readable (n = 32768)', async ({
  sandbox: { page, errors },
}) => {
  await page.setViewportSize(NARROW)
  await page.getByTestId('polyModulusDegree-32768').check({ force: true })
  await page.getByRole('button', { name: /Create context|Use these parameters/ }).click()
  const parts = await measureBusyBar(page)
  await saveDebugShot(page, 'busy bar at 390')
  await page.getByRole('button', { name: 'Cancel', exact: true }).click()
  const shown = parts.filter((part) => part.name !== 'saved' || part.width > 0)
  for (const part of shown) {
    expect({ name: part.name, visible: part.width > 0 && part.height > 0 }).toEqual({
      name: part.name,
      visible: true,
    })
    expect({ name: part.name, cut: part.cut }).toEqual({ name: part.name, cut: false })
    // Inside the screen.
    expect(part.x >= 0 && part.x + part.width <= NARROW.width + 0.5, part.name).toBe(true)
  }
  expect(overlaps(shown)).toEqual([])
  expect(errors).toEqual([])
})

test('at 390 px a long context build keeps its status in view and its button says it is building (n = 32768)', async ({
  sandbox: { page, errors },
}) => {
  await page.setViewportSize(NARROW)
  await page.getByTestId('polyModulusDegree-32768').check({ force: true })
  const create = page.getByRole('button', { name: 'Create context' })
  // The button is far down the form: the page is scrolled to it, the status bar's place is off screen.
  await create.scrollIntoViewIfNeeded()
  await create.click()
  // Measured in the first frame that shows the running job.
  const handle = await page.waitForFunction(
    () => {
      const label = document.querySelector('[data-testid="job-label"]')
      if (!label) return false
      const bar = document.querySelector('.activity-bar')?.getBoundingClientRect()
      const submit = document.querySelector<HTMLButtonElement>(
        'form[aria-label="Encryption parameters"] button[type="submit"]',
      )
      return {
        scrolled: window.scrollY > 0,
        barTop: bar?.top ?? -1,
        barBottom: bar?.bottom ?? -1,
        button: submit?.textContent ?? '',
        disabled: submit?.disabled ?? false,
      }
    },
    undefined,
    { timeout: 60_000, polling: 'raf' },
  )
  const busy = (await handle.jsonValue()) as {
    scrolled: boolean
    barTop: number
    barBottom: number
    button: string
    disabled: boolean
  }
  await saveDebugShot(page, 'context build at 390')
  await page.getByRole('button', { name: 'Cancel', exact: true }).click()
  expect(busy.scrolled).toBe(true)
  expect(busy.barTop >= 0 && busy.barBottom <= NARROW.height, JSON.stringify(busy)).toBe(true)
  expect({ button: busy.button, disabled: busy.disabled }).toEqual({ button: 'Building the context…', disabled: true })
  // Cancelled: the button is back to what it was.
  await expect.poll(() => create.isEnabled(), { timeout: 60_000 }).toBe(true)
  expect(errors).toEqual([])
})

for (const viewport of [NARROW, WIDE]) {
  test(`at ${viewport.width} px every key card shows its whole title, its badges and its size apart from the buttons`, async ({
    sandbox: { page, errors },
  }) => {
    const url = inject('sandboxUrl')
    await page.setViewportSize(viewport)
    await openWorkspaceLink(
      page,
      workspaceLink(url, {
        version: 1,
        params: { scheme: 'bfv', polyModulusDegree: 4096 },
        keys: { galois: 'powerOfTwo' },
        variables: [{ name: 'x', kind: 'ciphertext', values: [1, 2, 3] }],
        steps: [
          { op: 'square', a: 'x', out: 'sq' },
          { op: 'relinearize', a: 'sq', out: 'r' },
          { op: 'rotateRows', a: 'r', steps: 1, out: 'rot' },
        ],
        print: ['rot'],
      }),
      3,
    )
    await openPanel(page, 'Keys')
    await saveDebugShot(page, `keys at ${viewport.width}`)
    // The README's picture of the Keys panel on a phone.
    if (viewport === NARROW && process.env.UPDATE_SCREENSHOTS === '1') await saveScreenshot(page, 'keys-mobile')
    for (const kind of ['secretKey', 'publicKey', 'relinKeys', 'galoisKeys']) {
      const row = page.getByTestId(`key-${kind}`)
      const boxes = await row.evaluate((element) => {
        const measure = (name: string, target: Element | null) => {
          const box = target?.getBoundingClientRect()
          return {
            name,
            x: box?.x ?? -1,
            y: box?.y ?? -1,
            width: box?.width ?? 0,
            height: box?.height ?? 0,
            cut: target ? target.scrollWidth > target.clientWidth + 1 : true,
          }
        }
        return [
          measure('title', element.querySelector('.key-name')),
          measure('row', element),
          ...[...element.querySelectorAll('.variable-head .badge')].map((badge, i) => measure(`badge ${i}`, badge)),
          measure('size', element.querySelector('.key-main .field-help')),
          ...[...element.querySelectorAll('.key-actions button, .key-actions label')].map((button) =>
            measure(button.textContent ?? 'button', button),
          ),
        ]
      })
      const [title, card, ...parts] = boxes
      const size = parts.find((box) => box.name === 'size')
      expect({ kind, cut: title?.cut, width: (title?.width ?? 0) > 0 }).toEqual({ kind, cut: false, width: true })
      expect({ kind, overlaps: overlaps([title, ...parts].filter((box) => box !== undefined)) }).toEqual({
        kind,
        overlaps: [],
      })
      // The size line has the card's width to itself, rather than one word per line beside the buttons.
      const wide = (size?.width ?? 0) >= 0.75 * (card?.width ?? Number.POSITIVE_INFINITY)
      expect({ kind, sizeLineWide: wide }).toEqual({ kind, sizeLineWide: true })
    }
    expect(errors).toEqual([])
  })
}

test('at 390 px the noise chart of the BFV example keeps its labels 10 px tall and scrolls sideways by itself', async ({
  sandbox: { page, errors },
}) => {
  await page.setViewportSize(NARROW)
  await page.getByRole('button', { name: 'Examples' }).click()
  await page.getByRole('button', { name: 'Load the BFV, n = 4096 example' }).click()
  await openPanel(page, 'Functions')
  const steps = EXAMPLE_WORKSPACES.bfv.steps.length
  await page.getByTestId(`step-${steps}`).getByTestId('step-result').getByLabel('done').waitFor({ timeout: 120_000 })
  const chart = page.getByTestId('noise-chart')
  const measured = await chart.evaluate((section) => {
    const plot = section.querySelector('.noise-plot') as HTMLElement
    const svg = plot.querySelector('svg') as SVGSVGElement
    const labels = [...svg.querySelectorAll('.noise-label')].map((label) => label.getBoundingClientRect().height)
    return {
      scale: svg.getBoundingClientRect().width / svg.viewBox.baseVal.width,
      smallestLabel: Math.min(...labels),
      scrolls: plot.scrollWidth > plot.clientWidth,
      focusable: plot.tabIndex === 0,
    }
  })
  await saveDebugShot(page, 'noise chart at 390')
  // Drawn at its own size or larger: 10 px text stays 10 px (it measured 3.7 px shrunk to fit).
  expect(measured.scale).toBeGreaterThanOrEqual(1)
  expect(measured.smallestLabel).toBeGreaterThanOrEqual(9)
  expect({ scrolls: measured.scrolls, focusable: measured.focusable }).toEqual({ scrolls: true, focusable: true })
  const axe = await runAxe(page, {}, '[data-testid="noise-chart"]')
  expect(axe.violations).toEqual([])
  // The page itself does not scroll sideways: only the chart does.
  await expectNoHorizontalOverflow(page, 'noise chart of the BFV example at 390 px')
  expect(errors).toEqual([])
})

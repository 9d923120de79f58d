import type { Page } from 'playwright-core'
import { expect, inject } from 'vitest'
import { saveDebugShot } from './support/layout.ts'
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

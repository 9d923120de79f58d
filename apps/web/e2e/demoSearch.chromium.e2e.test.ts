import { ServerNode } from '@sealbox/testkit'
import { afterAll, beforeAll, expect } from 'vitest'
import { DIST_DIR } from './support/buildApp.ts'
import { expectNoHorizontalOverflow } from './support/layout.ts'
import { openPanel } from './support/openPanel.ts'
import { test } from './support/sandboxTest.ts'
import { saveElementScreenshot } from './support/screenshots.ts'

/*
 * The private search demo over the server's named demo database (the chemical elements):
 * words typed in the sandbox become a query vector with the same public embedding the
 * rows were made with, and the hits are elements, shown as readable fields.
 */

let server: ServerNode

beforeAll(async () => {
  server = await ServerNode.start({
    name: 'demo-search',
    env: { MODE: 'local', WEB_DIST: DIST_DIR, WORKERS: '1', LOG_LEVEL: 'warn', DATABASE: 'demo' },
  })
})

afterAll(async () => {
  await server?.stop()
})

test('searching privately for "noble gas" returns the noble gases by name, ranked like the plaintext computation, every column in view; "Fe" finds Iron', async ({
  newPage,
}) => {
  // This file's own server (DATABASE=demo), not the suite's: a page of the file's Chromium opened on it.
  const page = await newPage()
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(String(error)))
  await page.setViewportSize({ width: 1400, height: 900 })
  await page.goto(`${server.url}/#parameters`)
  await page.getByTestId('worker-ready').waitFor({ timeout: 60_000 })
  await openPanel(page, 'Server')
  const connection = page.getByRole('form', { name: 'Server connection' })
  await connection.getByRole('button', { name: 'Connect', exact: true }).click()
  await connection.getByTestId('server-connection').getByText('Ready').waitFor({ timeout: 60_000 })

  const search = page.getByRole('region', { name: 'Private search' })
  await expect(search.textContent()).resolves.toMatch(/chemical elements \(demo\)/)
  const words = search.getByLabel('Search the elements for')
  await words.fill(',;')
  await expect(search.getByRole('alert').textContent()).resolves.toBe('Type a word: letters or digits.')
  await words.fill('noble gas')
  await search.getByRole('button', { name: 'Search privately' }).click()
  const result = search.getByTestId('search-result').first()
  await result.waitFor({ timeout: 120_000 })

  const hits = result.getByTestId('search-hits')
  // Metadata as fields, one column each, never raw JSON (the symbol is the Id: not twice).
  await expect(hits.locator('thead th').allTextContents()).resolves.toEqual([
    'Rank',
    'Id',
    'name',
    'number',
    'category',
    'phase',
    'period',
    'Score',
    'Cosine',
  ])
  await expect(hits.textContent()).resolves.not.toMatch(/[{}"]/)
  const categories = await hits.getByTestId('search-hit-category').allTextContents()
  expect(categories).toHaveLength(5)
  expect(new Set(categories)).toEqual(new Set(['noble gas']))
  const names = await hits.getByTestId('search-hit-name').allTextContents()
  for (const name of names)
    expect(['Helium', 'Neon', 'Argon', 'Krypton', 'Xenon', 'Radon', 'Oganesson']).toContain(name)
  // The database is public: the sandbox ranks it in plaintext too, and the encrypted ranking is the same.
  await expect(result.getByTestId('search-oracle').textContent()).resolves.toMatch(/^✓ Same ranking/)
  if (process.env.UPDATE_SCREENSHOTS === '1') await saveElementScreenshot(search, 'search-demo')

  // Every column of the hits in view at 1400 px, the cosine too (nothing hidden in a sideways scroll).
  const fits = await hits.evaluate((table) => {
    const scroller = table.parentElement as HTMLElement
    const cosine = table.querySelector('thead th:last-child') as HTMLElement
    return {
      table: table.scrollWidth <= scroller.clientWidth,
      cosine: cosine.getBoundingClientRect().right <= scroller.getBoundingClientRect().right + 0.5,
    }
  })
  expect(fits).toEqual({ table: true, cosine: true })

  // A symbol finds its element first ("Fe" is Iron, not Mercury), and so does a name.
  for (const [typed, name, run] of [
    ['Fe', 'Iron', 2],
    ['mercury', 'Mercury', 3],
  ] as const) {
    await words.fill(typed)
    await search.getByRole('button', { name: 'Search privately' }).click()
    await expect.poll(() => search.getByTestId('search-result').count(), { timeout: 120_000 }).toBe(run)
    await expect(
      search.getByTestId('search-result').first().getByTestId('search-hit-name').first().textContent(),
    ).resolves.toBe(name)
  }

  await expectNoHorizontalOverflow(page, 'demo search at 1400')
  await page.setViewportSize({ width: 390, height: 844 })
  await expectNoHorizontalOverflow(page, 'demo search at 390')
  expect(errors).toEqual([])
})

test('says "no good match" for nonsense, and a phrase is read by its meaningful words ("in" is not Indium)', async ({
  newPage,
}) => {
  const page = await newPage()
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(String(error)))
  await page.goto(`${server.url}/#server`)
  await page.getByTestId('worker-ready').waitFor({ timeout: 60_000 })
  const connection = page.getByRole('form', { name: 'Server connection' })
  await connection.getByRole('button', { name: 'Connect', exact: true }).click()
  await connection.getByTestId('server-connection').getByText('Ready').waitFor({ timeout: 60_000 })
  const search = page.getByRole('region', { name: 'Private search' })
  const words = search.getByLabel('Search the elements for')
  // An empty query: the button waits, and says for what; the box is styled like every other field.
  await expect(search.getByRole('button', { name: 'Search privately' }).isDisabled()).resolves.toBe(true)
  await expect(search.getByTestId('search-empty-hint').textContent()).resolves.toBe('Type some words first.')
  const box = await words.evaluate((input) => {
    const style = getComputedStyle(input)
    return { fontSize: Number.parseFloat(style.fontSize), width: input.getBoundingClientRect().width }
  })
  expect(box.fontSize).toBeGreaterThanOrEqual(15)
  expect(box.width).toBeGreaterThan(300)
  const searchFor = async (typed: string, run: number) => {
    await words.fill(typed)
    await search.getByRole('button', { name: 'Search privately' }).click()
    await expect.poll(() => search.getByTestId('search-result').count(), { timeout: 120_000 }).toBe(run)
    return search.getByTestId('search-result').first()
  }

  // Nonsense: still a ranking (the encrypted one equals the plaintext one), but said to be no match.
  const nonsense = await searchFor('asdfgh', 1)
  await expect(search.getByTestId('search-empty-hint').count()).resolves.toBe(0)
  await expect(nonsense.getByTestId('search-no-match').textContent()).resolves.toMatch(
    /^No good match: the best cosine is 0\.\d{3}, and a real match scores above 0\.3\./,
  )
  const best = Number(
    (await nonsense.locator('[data-testid="search-hits"] tbody tr td:last-child').first().textContent()) ?? '',
  )
  expect(best).toBeLessThan(0.3)
  await expect(nonsense.getByTestId('search-oracle').textContent()).resolves.toMatch(/^✓ Same ranking/)

  // A real match: no such note.
  const gases = await searchFor('noble gas', 2)
  await expect(gases.getByTestId('search-hit-category').first().textContent()).resolves.toBe('noble gas')
  await expect(gases.getByTestId('search-no-match').count()).resolves.toBe(0)

  // "in" is glue in a phrase, so Indium no longer comes first; typed alone it is Indium's symbol.
  const batteries = await searchFor('metal used in batteries', 3)
  await expect(batteries.getByTestId('search-hit-name').first().textContent()).resolves.not.toBe('Indium')
  const indium = await searchFor('In', 4)
  await expect(indium.getByTestId('search-hit-name').first().textContent()).resolves.toBe('Indium')
  expect(errors).toEqual([])
})

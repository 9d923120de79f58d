import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'

const require = createRequire(import.meta.url)
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8')

/** One rule's result on the nodes it checked (violations, passes or inapplicable). */
export interface AxeRuleResult {
  id: string
  impact: string | null
  nodes: Array<{ target: unknown[] }>
}

/** What axe-core reports for a page or part of it. */
export interface AxeResults {
  violations: AxeRuleResult[]
  passes: AxeRuleResult[]
  inapplicable: AxeRuleResult[]
}

/**
 * Runs axe-core in the page on `selector` (the whole document when absent), with axe's
 * run options (`runOnly`, `rules`…). The page's CSP forbids inline scripts
 * (addScriptTag), so axe's source is evaluated over the DevTools protocol instead.
 */
export async function runAxe(page: Page, options: object = {}, selector?: string): Promise<AxeResults> {
  if ((await page.evaluate(() => 'axe' in window)) === false) await page.evaluate(AXE_SOURCE)
  return page.evaluate(
    async ({ options, selector }) => {
      const axe = (window as unknown as { axe: { run: (context: unknown, options: object) => Promise<AxeResults> } })
        .axe
      const context = selector ? document.querySelector(selector) : document
      const { violations, passes, inapplicable } = await axe.run(context, options)
      const plain = (rules: AxeRuleResult[]) =>
        rules.map(({ id, impact, nodes }) => ({ id, impact, nodes: nodes.map(({ target }) => ({ target })) }))
      return { violations: plain(violations), passes: plain(passes), inapplicable: plain(inapplicable) }
    },
    { options, selector },
  )
}

import { deflateRawSync } from 'node:zlib'
import type { WorkspaceInput } from '@sealbox/he-core'
import type { Page } from 'playwright-core'

/**
 * The sandbox's permalink for `spec` opening on `panel` (`#panel&w=…`: JSON, deflate-raw,
 * base64url — the format the page's "Copy link" writes), so a test can set up a
 * workspace in one step.
 */
export function workspaceLink(sandboxUrl: string, spec: WorkspaceInput, panel = 'functions'): string {
  const encoded = deflateRawSync(Buffer.from(JSON.stringify(spec))).toString('base64url')
  return `${sandboxUrl}/#${panel}&w=${encoded}`
}

/**
 * Opens a permalink in a page that holds no keys (it opens without asking) and waits
 * until the pipeline's last step has finished or a step has stopped.
 */
export async function openWorkspaceLink(page: Page, link: string, steps: number): Promise<void> {
  await page.goto(link)
  const last = page.getByTestId(`step-${steps}`).getByTestId('step-result').getByLabel('done')
  const stopped = page.locator('.step-card [data-error-code]')
  await Promise.race([last.waitFor({ timeout: 180_000 }), stopped.first().waitFor({ timeout: 180_000 })])
}

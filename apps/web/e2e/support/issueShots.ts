import { mkdir } from 'node:fs/promises'
import type { Page } from 'playwright-core'

/**
 * With ISSUE_SHOTS_DIR set, saves a full-page screenshot as <dir>/<name>-<ISSUE_SHOTS_TAG>.png
 * (e.g. "before" and "after" a fix, for an issue's closing note); otherwise does nothing,
 * so a test run leaves no files behind.
 */
export async function saveIssueShot(page: Page, name: string): Promise<void> {
  const dir = process.env.ISSUE_SHOTS_DIR
  if (!dir) return
  await mkdir(dir, { recursive: true })
  await page.mouse.move(0, 0)
  const tag = process.env.ISSUE_SHOTS_TAG ?? 'shot'
  await page.screenshot({ path: `${dir}/${name}-${tag}.png`, fullPage: true, animations: 'disabled' })
}

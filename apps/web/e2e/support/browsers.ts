import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromiumFlags } from '@sealbox/server/testing'
import { type BrowserContext, chromium } from 'playwright-core'

/** Debian's Chromium, Firefox ESR and WebKitGTK driver (see packages/bench/BROWSERS.md). */
export const CHROMIUM_PATH = process.env.SEALBOX_CHROMIUM ?? '/usr/bin/chromium'
export const FIREFOX_PATH = process.env.SEALBOX_FIREFOX ?? '/usr/bin/firefox-esr'
export const WEBKIT_DRIVER_PATH = process.env.SEALBOX_WEBKIT_DRIVER ?? '/usr/bin/WebKitWebDriver'

/** A Chromium context over a fresh profile directory (fresh IndexedDB), removed on close. */
export async function launchChromium(): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = await mkdtemp(join(tmpdir(), 'sealbox-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: chromiumFlags(),
    viewport: { width: 1360, height: 900 },
    deviceScaleFactor: 1,
    acceptDownloads: true,
  })
  return {
    context,
    close: async () => {
      await context.close()
      await rm(profile, { recursive: true, force: true })
    },
  }
}

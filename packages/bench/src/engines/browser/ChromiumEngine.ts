import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromiumLaunchOptions, debianToolPath } from '@sealbox/testkit'
import { chromium } from 'playwright-core'
import type { BenchEngine, EngineAvailability, EngineSession, EngineStartContext } from '../BenchEngine.ts'
import type { BenchPageHost } from './BenchPageHost.ts'
import { startInBrowser } from './startInBrowser.ts'

const CHROMIUM = debianToolPath('chromium')

/** The Chromium column: Debian's Chromium, headless, driven by playwright-core. */
export class ChromiumEngine implements BenchEngine {
  readonly id = 'chromium'
  readonly label = 'Chromium'
  readonly shortName = 'Chromium'
  readonly color = '#4285f4'
  readonly #host: BenchPageHost

  constructor(host: BenchPageHost) {
    this.#host = host
  }

  async detect(): Promise<EngineAvailability> {
    if (existsSync(CHROMIUM)) return { available: true }
    return {
      available: false,
      reason: `${CHROMIUM} not found`,
      install: 'sudo apt-get install -y chromium (or rerun with --install-browsers)',
    }
  }

  start(context: EngineStartContext): Promise<EngineSession> {
    return startInBrowser('chromium', this.#host, context, async (url, onCrash) => {
      // Playwright rejects --user-data-dir in args: a persistent context owns the profile directory.
      const profile = await mkdtemp(join(tmpdir(), 'sealbox-chromium-'))
      const browser = await chromium.launchPersistentContext(profile, chromiumLaunchOptions())
      const page = browser.pages()[0] ?? (await browser.newPage())
      page.on('crash', () => onCrash('the page crashed (out of memory?)'))
      browser.on('close', () => onCrash('the browser closed'))
      await page.goto(url)
      return {
        // The user agent is frozen at 156.0.0.0; the binary knows its build.
        version: async () =>
          spawnSync(CHROMIUM, ['--version'], { encoding: 'utf8' }).stdout.match(/[\d.]+/)?.[0] ??
          browser.browser()?.version() ??
          'unknown',
        close: async () => {
          await browser.close()
          await rm(profile, { recursive: true, force: true })
        },
      }
    })
  }
}

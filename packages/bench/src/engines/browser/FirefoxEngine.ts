import { existsSync } from 'node:fs'
import { debianToolPath, firefoxLaunchOptions } from '@sealbox/testkit'
import puppeteer from 'puppeteer-core'
import type { BenchEngine, EngineAvailability, EngineSession, EngineStartContext } from '../BenchEngine.ts'
import type { BenchPageHost } from './BenchPageHost.ts'
import { startInBrowser } from './startInBrowser.ts'

const FIREFOX = debianToolPath('firefox')

/**
 * The Firefox column: Debian's Firefox ESR, headless, driven by puppeteer-core over
 * WebDriver BiDi (Playwright's firefox launcher cannot drive a stock Firefox).
 */
export class FirefoxEngine implements BenchEngine {
  readonly id = 'firefox'
  readonly label = 'Firefox ESR'
  readonly shortName = 'Firefox'
  readonly color = '#e66000'
  readonly #host: BenchPageHost

  constructor(host: BenchPageHost) {
    this.#host = host
  }

  async detect(): Promise<EngineAvailability> {
    if (existsSync(FIREFOX)) return { available: true }
    return {
      available: false,
      reason: `${FIREFOX} not found`,
      install: 'sudo apt-get install -y firefox-esr (or rerun with --install-browsers)',
    }
  }

  start(context: EngineStartContext): Promise<EngineSession> {
    return startInBrowser('firefox', this.#host, context, async (url, onCrash) => {
      const browser = await puppeteer.launch(firefoxLaunchOptions())
      browser.on('disconnected', () => onCrash('the browser went away'))
      const page = (await browser.pages())[0] ?? (await browser.newPage())
      await page.goto(url)
      return {
        version: async () => (await browser.version()).replace(/^firefox\//i, ''),
        close: () => browser.close(),
      }
    })
  }
}

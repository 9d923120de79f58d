import { chromiumFlags, debianToolPath } from './debianTools.ts'

/** How a headless Debian browser is launched: its binary, headless, and (Chromium) its flags. */
export interface BrowserLaunchOptions {
  executablePath: string
  headless: true
  args: string[]
}

/**
 * Debian's Chromium, headless, with `chromiumFlags()`: options for Playwright's
 * `chromium.launch` and `chromium.launchPersistentContext` alike.
 */
export function chromiumLaunchOptions(): BrowserLaunchOptions {
  return { executablePath: debianToolPath('chromium'), headless: true, args: chromiumFlags() }
}

/**
 * Debian's Firefox ESR, headless: options for Puppeteer's `launch` over WebDriver BiDi
 * (Playwright cannot drive a stock Firefox).
 */
export function firefoxLaunchOptions(): BrowserLaunchOptions & { browser: 'firefox' } {
  return { browser: 'firefox', executablePath: debianToolPath('firefox'), headless: true, args: [] }
}

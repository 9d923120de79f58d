/** Debian's Chromium, Firefox ESR and WebKitGTK driver (see packages/bench/BROWSERS.md). */
export const CHROMIUM_PATH = process.env.SEALBOX_CHROMIUM ?? '/usr/bin/chromium'
export const FIREFOX_PATH = process.env.SEALBOX_FIREFOX ?? '/usr/bin/firefox-esr'
export const WEBKIT_DRIVER_PATH = process.env.SEALBOX_WEBKIT_DRIVER ?? '/usr/bin/WebKitWebDriver'

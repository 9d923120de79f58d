import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromiumLaunchOptions, debianToolPath } from '@sealbox/testkit'
import { type BrowserContext, chromium } from 'playwright-core'
import { BenchError } from '../BenchError.ts'
import { buildBenchPage } from '../engines/browser/buildBenchPage.ts'
import { PageServer } from '../engines/browser/PageServer.ts'
import type { BrowserClientRun, BrowserClientSetup } from './browserClient/browserClientProtocol.ts'

const CHROMIUM = debianToolPath('chromium')
const PAGE_ROOT = fileURLToPath(new URL('./browserClient/', import.meta.url))

interface ClientPage {
  __sealboxSetup(api: string): Promise<BrowserClientSetup>
  __sealboxMeasure(samples: number): Promise<BrowserClientRun>
}

/**
 * The end-to-end benchmark's Chromium client: the page in browserClient/ (he-core's search
 * client, built with Vite by the op table's `buildBenchPage`) served on 127.0.0.1, opened in Debian's
 * Chromium (headless, Playwright), and pointed at a server through the shaped link. The page
 * is on another origin than the API, so the server must list `origin` in CORS_ORIGINS.
 */
export class BrowserSearchClient implements AsyncDisposable {
  readonly origin: string
  readonly #server: PageServer
  readonly #dir: string
  readonly #context: BrowserContext
  readonly #profile: string
  readonly version: string

  private constructor(init: {
    origin: string
    server: PageServer
    dir: string
    context: BrowserContext
    profile: string
    version: string
  }) {
    this.origin = init.origin
    this.#server = init.server
    this.#dir = init.dir
    this.#context = init.context
    this.#profile = init.profile
    this.version = init.version
  }

  /** Builds the page and launches Chromium; ENGINE_UNAVAILABLE when there is no Chromium. */
  static async start(): Promise<BrowserSearchClient> {
    if (!existsSync(CHROMIUM)) throw new BenchError('ENGINE_UNAVAILABLE', `${CHROMIUM} not found`)
    const dir = await mkdtemp(join(tmpdir(), 'sealbox-search-client-'))
    await buildBenchPage(dir, PAGE_ROOT)
    const server = new PageServer(dir)
    await server.start()
    // PageServer hands out run URLs; the page itself needs none, so take its origin from one.
    const probe = server.open({} as never, () => {})
    const origin = new URL(probe.url).origin
    probe.close()
    // Playwright rejects --user-data-dir in args: a persistent context owns the profile directory.
    const profile = await mkdtemp(join(tmpdir(), 'sealbox-chromium-'))
    const context = await chromium.launchPersistentContext(profile, chromiumLaunchOptions())
    const version = context.browser()?.version() ?? 'unknown'
    return new BrowserSearchClient({ origin, server, dir, context, profile, version })
  }

  /**
   * Opens the page, sets the client up against `api` (session, keys, one untimed query),
   * runs `between` (the caller reads the server's CPU), then times `samples` queries.
   */
  async run(
    api: string,
    samples: number,
    between: () => Promise<void>,
  ): Promise<{ setup: BrowserClientSetup; run: BrowserClientRun }> {
    const page = await this.#context.newPage()
    try {
      await page.goto(`${this.origin}/index.html`)
      await page.waitForFunction(() => typeof (globalThis as unknown as ClientPage).__sealboxSetup === 'function')
      const setup = await page.evaluate((url) => (globalThis as unknown as ClientPage).__sealboxSetup(url), api)
      await between()
      const run = await page.evaluate((n) => (globalThis as unknown as ClientPage).__sealboxMeasure(n), samples)
      return { setup, run }
    } finally {
      await page.close()
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.#context.close().catch(() => undefined)
    await this.#server.stop()
    await rm(this.#dir, { recursive: true, force: true })
    await rm(this.#profile, { recursive: true, force: true })
  }
}

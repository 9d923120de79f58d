import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildBenchPage } from './buildBenchPage.ts'
import { PageServer } from './PageServer.ts'

/**
 * Builds the benchmark page and starts its server on first use, shared by the browser
 * engines of one run; `close()` stops the server and removes the build.
 */
export class BenchPageHost {
  #server: Promise<PageServer> | undefined
  #dir: string | undefined

  server(): Promise<PageServer> {
    this.#server ??= (async () => {
      this.#dir = await mkdtemp(join(tmpdir(), 'sealbox-bench-page-'))
      await buildBenchPage(this.#dir)
      const server = new PageServer(this.#dir)
      await server.start()
      return server
    })()
    return this.#server
  }

  async close(): Promise<void> {
    const server = await this.#server?.catch(() => undefined)
    await server?.stop()
    if (this.#dir) await rm(this.#dir, { recursive: true, force: true })
    this.#server = undefined
    this.#dir = undefined
  }
}

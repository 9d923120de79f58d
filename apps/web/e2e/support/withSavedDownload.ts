import { join } from 'node:path'
import type { Download } from 'playwright-core'
import { inTempDir } from './keyedContext.ts'

/**
 * Runs `use` with `download` saved under its suggested name in a fresh temporary folder,
 * removed afterwards. The project's Chromium is a remote browser to a test file
 * (e2e/globalSetup.ts), so a download has no local `path()`: it is streamed here.
 */
export function withSavedDownload<T>(download: Download, use: (file: string) => Promise<T>): Promise<T> {
  return inTempDir(async (dir) => {
    const file = join(dir, download.suggestedFilename())
    await download.saveAs(file)
    return use(file)
  })
}

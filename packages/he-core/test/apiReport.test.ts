import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

/*
 * he-core's public surface is reviewed, not accidental: every entry point's exports are
 * compared with its committed API report in api/ (scripts/apiReport.ts). An export added,
 * removed or changed without its report fails here; the message says how to update it.
 */

const run = promisify(execFile)
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url))

describe("he-core's API reports", () => {
  it('match the exports of every entry point', { timeout: 180_000 }, async () => {
    const result = await run(process.execPath, ['scripts/apiReport.ts'], { cwd: PACKAGE_DIR }).then(
      ({ stderr }) => ({ code: 0, stderr }),
      (error: { code?: number; stderr?: string }) => ({ code: error.code ?? 1, stderr: error.stderr ?? '' }),
    )
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
  })
})

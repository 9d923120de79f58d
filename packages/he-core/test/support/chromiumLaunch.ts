import table from '../../../../scripts/debianTools.json' with { type: 'json' }
import { HeError } from '../../src/errors/HeError.ts'

/*
 * How this package's browser test launches Debian's Chromium: read from the repository's one
 * table of Debian tools and browser flags (scripts/debianTools.json, which @sealbox/testkit's
 * `chromiumLaunchOptions` reads too), not imported from testkit: testkit builds on he-core,
 * so he-core's own tests depending on it would be a cycle.
 */

/** Chromium's path (SEALBOX_CHROMIUM overrides the table) and the flags it runs headless with. */
export function chromiumLaunch(): { executablePath: string; args: string[] } {
  const row = table.packages.find((entry) => entry.tool === 'chromium')
  if (!row) throw new HeError('INTERNAL', 'scripts/debianTools.json lists no chromium')
  const root = typeof process.getuid === 'function' && process.getuid() === 0
  return {
    executablePath: process.env.SEALBOX_CHROMIUM || row.bin,
    args: [...table.chromiumFlags, ...(root ? table.chromiumRootFlags : [])],
  }
}

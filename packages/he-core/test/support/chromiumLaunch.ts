import table from '../../../../scripts/debianTools.json' with { type: 'json' }
import { HeError } from '../../src/errors/HeError.ts'

/*
 * How this package's browser test launches Debian's Chromium: read from the repository's one
 * table of Debian tools and browser flags (scripts/debianTools.json, which the server's test
 * kit reads too), not imported from the server — he-core sits below the apps.
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

import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { readmeCodeBlock } from './support/packageReadme.ts'

/*
 * The README's "Errors" example is run as written (from inside the package, against src/):
 * it must catch an INVALID_PARAMS HeError and print the reason its prose quotes.
 */

const run = promisify(execFile)
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url))

describe("the README's error handling example", () => {
  it('catches INVALID_PARAMS and prints the reason the README quotes', async () => {
    const dir = await mkdtemp(join(PACKAGE_DIR, '.readme-example-'))
    try {
      await writeFile(join(dir, 'errors.ts'), readmeCodeBlock('## Errors'))
      const { stderr } = await run(process.execPath, ['--conditions=@sealbox/source', join(dir, 'errors.ts')], {
        cwd: PACKAGE_DIR,
      })
      expect(stderr).toContain('coeff modulus totals 218 bits; n=4096 at tc128 allows at most 109')
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

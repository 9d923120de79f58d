import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { modulesLoadedBy } from './support/modulesLoadedBy.ts'
import { isNodeSeal, valueImportChain } from './support/valueImportChain.ts'

/*
 * `@sealbox/he-core/client` is for pages and scripts that only talk to a server: importing it
 * must not load node-seal (a multi-megabyte WASM engine), nor anything Node-only. The package
 * test (package.e2e.test.ts) checks the same of the built dist, installed from the tarball.
 */

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url))
const SRC = fileURLToPath(new URL('../src/', import.meta.url))

describe('@sealbox/he-core/client', () => {
  it('has no run-time import path to node-seal, to src/seal or to a node: builtin', () => {
    const chain = valueImportChain(
      `${SRC}client/index.ts`,
      (module) => isNodeSeal(module) || module.startsWith(`${SRC}seal/`) || module.startsWith('node:'),
    )
    // On failure the message is the import chain to cut, entry first.
    expect(chain?.map((m) => m.replace(SRC, 'src/'))).toBeUndefined()
  })

  it('loads no node-seal module when imported in a fresh Node process (source condition)', async () => {
    const loaded = await modulesLoadedBy('@sealbox/he-core/client', {
      cwd: PACKAGE_DIR,
      nodeArgs: ['--conditions=@sealbox/source'],
    })
    expect(loaded).toContain(`file://${SRC}client/SealboxClient.ts`)
    expect(loaded.filter((url) => url.includes('node-seal'))).toEqual([])
  })

  it('the probe sees node-seal when the core entry loads it', async () => {
    const loaded = await modulesLoadedBy('@sealbox/he-core', {
      cwd: PACKAGE_DIR,
      nodeArgs: ['--conditions=@sealbox/source'],
    })
    expect(loaded.some((url) => url.includes('/node-seal/'))).toBe(true)
  })
})

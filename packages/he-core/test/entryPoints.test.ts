import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { packageReadme } from './support/packageReadme.ts'
import { isNodeSeal, valueImportChain } from './support/valueImportChain.ts'

/*
 * The table of entry points in he-core's README is the map a package user reads: it must list
 * exactly the entries package.json exports, and say truly which of them load node-seal.
 */

const PACKAGE_DIR = new URL('..', import.meta.url)
const manifest = JSON.parse(readFileSync(new URL('package.json', PACKAGE_DIR), 'utf8')) as {
  exports: Record<string, { '@sealbox/source': string }>
}
const specifierOf = (subpath: string) => `@sealbox/he-core${subpath.slice(1)}`
const rows = [...packageReadme().matchAll(/^\| `(@sealbox\/he-core[^`]*)` \|.*\| (yes|no) \|$/gm)].map(
  ([, entry, loadsSeal]) => ({ entry: entry ?? '', loadsSeal: loadsSeal === 'yes' }),
)

describe("README's he-core entry points", () => {
  it('lists exactly the entries package.json exports, in its order', () => {
    expect(rows.map((row) => row.entry)).toEqual(Object.keys(manifest.exports).map(specifierOf))
  })

  it.each(Object.entries(manifest.exports))('says truly whether %s loads node-seal', (subpath, targets) => {
    const row = rows.find((r) => r.entry === specifierOf(subpath))
    const source = new URL(targets['@sealbox/source'], PACKAGE_DIR).pathname
    expect(valueImportChain(source, isNodeSeal) !== undefined).toBe(row?.loadsSeal)
  })
})

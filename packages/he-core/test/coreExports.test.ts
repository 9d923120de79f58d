import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

/*
 * The core entry is the surface most users import: it stays small enough to read (issue 32
 * set the bound at 160 names, values and types together). A name that serves one audience
 * belongs in its entry (`./envelope`, `./search`, `./client`, …); this test counts what
 * `src/index.ts` exports, as the compiler sees it, so a bound crossed names the way out.
 */

const MAX_CORE_EXPORTS = 160
const INDEX = fileURLToPath(new URL('../src/index.ts', import.meta.url))

function exportedNames(entry: string): string[] {
  const program = ts.createProgram([entry], {
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    noEmit: true,
    skipLibCheck: true,
    customConditions: ['@sealbox/source'],
  })
  const source = program.getSourceFile(entry)
  const checker = program.getTypeChecker()
  const module = source && checker.getSymbolAtLocation(source)
  return module ? checker.getExportsOfModule(module).map((symbol) => symbol.getName()) : []
}

describe('the core entry', () => {
  it(`exports at most ${MAX_CORE_EXPORTS} names`, { timeout: 60_000 }, () => {
    const names = exportedNames(INDEX)
    // A sanity floor: the count comes from the real module, not from an empty program.
    expect(names).toContain('KeySet')
    expect(names).toContain('HeError')
    expect(
      names.length,
      `core exports ${names.length} names: move one audience's names to its entry`,
    ).toBeLessThanOrEqual(MAX_CORE_EXPORTS)
  })
})

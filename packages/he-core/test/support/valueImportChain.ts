import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import ts from 'typescript'

/**
 * The modules a file loads at run time: `import`/`export … from` that survive compilation
 * (with `verbatimModuleSyntax`, `import { type X }` still loads its module; only
 * `import type`/`export type` is erased) and `import()` calls. Relative specifiers come back
 * as absolute paths, bare ones (`zod`, `node:fs`, `node-seal/throws`) as written.
 */
function runtimeImportsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
  const specifiers: string[] = []
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly) {
      specifiers.push((node.moduleSpecifier as ts.StringLiteral).text)
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && !node.isTypeOnly) {
      specifiers.push((node.moduleSpecifier as ts.StringLiteral).text)
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      specifiers.push(node.arguments[0].text)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return specifiers.map((s) => (s.startsWith('.') ? resolve(dirname(file), s) : s))
}

/**
 * Walks the run-time import graph from `entry` (breadth first, so the chain is a shortest
 * one) and returns the chain of modules from `entry` to the first module `forbidden` accepts,
 * or undefined when none is reachable. Bare specifiers are leaves: only our own files are followed.
 */
export function valueImportChain(entry: string, forbidden: (module: string) => boolean): string[] | undefined {
  const parent = new Map<string, string | undefined>([[entry, undefined]])
  const queue = [entry]
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (forbidden(file)) {
      const chain = [file]
      for (let up = parent.get(file); up !== undefined; up = parent.get(up)) chain.unshift(up)
      return chain
    }
    if (!file.startsWith('/')) continue
    for (const next of runtimeImportsOf(file)) {
      if (parent.has(next)) continue
      parent.set(next, file)
      queue.push(next)
    }
  }
  return undefined
}

/** Whether a module specifier names node-seal or one of its subpaths. */
export function isNodeSeal(module: string): boolean {
  return module === 'node-seal' || module.startsWith('node-seal/')
}

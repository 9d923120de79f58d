// A copy of this checkout for a test that builds or packs: `npm run build` and `pnpm pack`
// rewrite dist/ (pack empties it first), which other test files running at the same time read
// in this checkout (the web sandbox's served build, a server started from dist/). In a copy,
// what the test builds changes nothing they read. Plain JavaScript with no dependencies, so
// every package's tests can use it (he-core's own tests cannot depend on @sealbox/testkit,
// which builds on he-core).
import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readdirSync, readlinkSync, symlinkSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The root of this checkout (the pnpm workspace). */
export const CHECKOUT_ROOT = dirname(dirname(fileURLToPath(import.meta.url)))

/** Directories at the root that hold workspace packages (pnpm-workspace.yaml's globs). */
const WORKSPACE_PARENTS = ['packages/', 'apps/']

/** Root node_modules entries the copy links: the store, its binaries and pnpm's record of them. */
const LINKED_DOT_ENTRIES = new Set(['.pnpm', '.bin', '.modules.yaml'])

/**
 * Copies the checkout at `from` (default: this one) to `into`, as `git clone` of its working
 * tree with the dependencies installed would give: every file git tracks or would add
 * (uncommitted edits included; what .gitignore names — dist/, node_modules/, caches — left
 * out), and node_modules made again of links. The root's is a directory of the copy's own
 * whose entries link to `from`'s (.pnpm, the store); each package's keeps pnpm's relative
 * links, so `@sealbox/he-core` in the copy's apps/server resolves to the copy's
 * packages/he-core. `workspaces` (`packages/he-ring`, `apps/server`, …) limits the packages
 * copied; files outside packages/ and apps/ (the root's package.json, pnpm-workspace.yaml,
 * tsconfig.base.json, scripts/, deploy/) are always copied. A `.tools` (Node 24, pnpm) is
 * linked, not copied. Returns `into`.
 * @param {{ into: string, from?: string, workspaces?: readonly string[] }} options
 * @returns {string}
 */
export function copyCheckout({ into, from = CHECKOUT_ROOT, workspaces }) {
  const target = resolve(into)
  const listed = execFileSync('git', ['-C', from, 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    encoding: 'utf8',
    maxBuffer: 64 * 2 ** 20,
  })
  const wanted = workspaces?.map((workspace) => `${workspace.replace(/\/+$/, '')}/`)
  const made = new Set()
  for (const file of listed.split('\0')) {
    if (!file) continue
    if (wanted && WORKSPACE_PARENTS.some((parent) => file.startsWith(parent))) {
      if (!wanted.some((workspace) => file.startsWith(workspace))) continue
    }
    const parent = dirname(join(target, file))
    if (!made.has(parent)) {
      mkdirSync(parent, { recursive: true })
      made.add(parent)
    }
    try {
      copyFileSync(join(from, file), join(target, file))
    } catch (error) {
      // A file git listed that another process removed since (an untracked temp file, a
      // deleted file still in the index) is no part of the working tree this copy stands for.
      if (error?.code !== 'ENOENT') throw error
    }
  }
  linkRootModules(from, target)
  for (const workspace of workspaces ?? workspaceDirs(from)) copyPackageModules(from, target, workspace)
  if (existsSync(join(from, '.tools'))) symlinkSync(join(from, '.tools'), join(target, '.tools'))
  return target
}

/** `packages/x` and `apps/y` for every workspace package directory of `root`. */
function workspaceDirs(root) {
  return WORKSPACE_PARENTS.flatMap((parent) =>
    readdirSync(join(root, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${parent}${entry.name}`),
  )
}

/** The copy's root node_modules: its own directory (caches, the install stamp), entries linked to `from`'s. */
function linkRootModules(from, target) {
  const source = join(from, 'node_modules')
  mkdirSync(join(target, 'node_modules'), { recursive: true })
  for (const entry of readdirSync(source)) {
    if (entry.startsWith('.') && !LINKED_DOT_ENTRIES.has(entry)) continue
    symlinkSync(join(source, entry), join(target, 'node_modules', entry))
  }
}

/**
 * A package's node_modules as pnpm made it: its links (relative: into the root's .pnpm, or to
 * a sibling package) copied as links, scoped folders and .bin made again, caches left out.
 */
function copyPackageModules(from, target, workspace) {
  const source = join(from, workspace, 'node_modules')
  if (!existsSync(source)) return
  const modules = join(target, workspace, 'node_modules')
  mkdirSync(modules, { recursive: true })
  for (const entry of readdirSync(source, { withFileTypes: true })) {
    if (entry.isSymbolicLink()) {
      symlinkSync(readlinkSync(join(source, entry.name)), join(modules, entry.name))
    } else if (entry.isDirectory() && (entry.name.startsWith('@') || entry.name === '.bin')) {
      mkdirSync(join(modules, entry.name))
      for (const inner of readdirSync(join(source, entry.name), { withFileTypes: true })) {
        const path = join(source, entry.name, inner.name)
        symlinkSync(inner.isSymbolicLink() ? readlinkSync(path) : path, join(modules, entry.name, inner.name))
      }
    }
  }
}

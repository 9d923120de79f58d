import { execFileSync } from 'node:child_process'
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { copyCheckout } from './copyCheckout.mjs'

let work
afterEach(() => {
  if (work) rmSync(work, { recursive: true, force: true })
})

/** A small pnpm-shaped checkout: two packages, one linked from the other, a built dist/, an untracked file. */
function checkout() {
  work = mkdtempSync(join(tmpdir(), 'sealbox-copy-checkout-'))
  const root = join(work, 'source')
  const write = (path, text) => {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  write('package.json', '{"name":"root"}\n')
  write('.gitignore', 'node_modules/\ndist/\n')
  write('scripts/tool.mjs', 'export {}\n')
  write('packages/ring/package.json', '{"name":"@x/ring"}\n')
  write('packages/ring/src/index.ts', 'export const ring = 1\n')
  write('packages/core/package.json', '{"name":"@x/core"}\n')
  write('packages/core/src/index.ts', 'export const core = 2\n')
  write('apps/server/package.json', '{"name":"@x/server"}\n')
  execFileSync('git', ['init', '-q', root])
  execFileSync('git', ['-C', root, 'add', '.'])
  write('packages/core/src/edited.ts', 'export const uncommitted = 3\n')
  write('packages/core/dist/index.js', 'built\n')
  write('node_modules/.pnpm/lib@1.0.0/node_modules/lib/index.js', 'lib\n')
  write('node_modules/.cache/junk', 'cache\n')
  write('node_modules/.sealbox-install-stamp', 'stamp\n')
  mkdirSync(join(root, 'packages/core/node_modules/@x'), { recursive: true })
  symlinkSync('../../../ring', join(root, 'packages/core/node_modules/@x/ring'))
  symlinkSync('../../../node_modules/.pnpm/lib@1.0.0/node_modules/lib', join(root, 'packages/core/node_modules/lib'))
  mkdirSync(join(root, 'packages/core/node_modules/.vite'))
  return root
}

describe('copyCheckout', () => {
  it('copies the working tree git would commit, without what .gitignore names, uncommitted edits included', () => {
    const root = checkout()
    const copy = copyCheckout({ from: root, into: join(work, 'copy') })
    expect(readFileSync(join(copy, 'packages/core/src/edited.ts'), 'utf8')).toBe('export const uncommitted = 3\n')
    expect(existsSync(join(copy, 'packages/ring/src/index.ts'))).toBe(true)
    expect(existsSync(join(copy, 'apps/server/package.json'))).toBe(true)
    expect(existsSync(join(copy, 'packages/core/dist'))).toBe(false)
    expect(existsSync(join(copy, '.git'))).toBe(false)
  })

  it('links a package to its sibling in the copy and to the dependencies installed in the source', () => {
    const root = checkout()
    const copy = copyCheckout({ from: root, into: join(work, 'copy') })
    expect(realpathSync(join(copy, 'packages/core/node_modules/@x/ring'))).toBe(join(copy, 'packages/ring'))
    expect(realpathSync(join(copy, 'packages/core/node_modules/lib'))).toBe(
      join(root, 'node_modules/.pnpm/lib@1.0.0/node_modules/lib'),
    )
    // The root's node_modules is the copy's own directory: caches and the install stamp stay out.
    expect(lstatSync(join(copy, 'node_modules')).isDirectory()).toBe(true)
    expect(lstatSync(join(copy, 'node_modules/.pnpm')).isSymbolicLink()).toBe(true)
    expect(existsSync(join(copy, 'node_modules/.cache'))).toBe(false)
    expect(existsSync(join(copy, 'node_modules/.sealbox-install-stamp'))).toBe(false)
    expect(existsSync(join(copy, 'packages/core/node_modules/.vite'))).toBe(false)
  })

  it('copies only the workspaces asked for, and every file outside packages/ and apps/', () => {
    const root = checkout()
    const copy = copyCheckout({ from: root, into: join(work, 'copy'), workspaces: ['packages/core', 'packages/ring'] })
    expect(existsSync(join(copy, 'packages/core/src/index.ts'))).toBe(true)
    expect(existsSync(join(copy, 'packages/ring/src/index.ts'))).toBe(true)
    expect(existsSync(join(copy, 'apps/server'))).toBe(false)
    expect(existsSync(join(copy, 'scripts/tool.mjs'))).toBe(true)
    expect(existsSync(join(copy, 'package.json'))).toBe(true)
  })
})

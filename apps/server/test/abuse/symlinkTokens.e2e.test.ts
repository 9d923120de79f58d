import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ServerNode, waitFor } from '@sealbox/testkit'
import { describe, expect, it, onTestFinished } from 'vitest'
import { duringAttack, expectHealthy, type HealthStats, idleHealth } from './abuseHarness.ts'
import { ABUSE_SERVER_ENV } from './abuseServer.ts'

/*
 * A symlinked TOKENS_FILE (issue 33, M3). Kubernetes mounts a Secret as
 * `dir/tokens -> ..data/tokens` with `..data -> ..2026_…` and updates it by swapping
 * `..data` to a new timestamped directory: the name `tokens` never changes, and the
 * watcher, which listened for that name only, never reloaded — a removed token stayed
 * accepted until SIGHUP. Now the path is resolved again after any change in its directory
 * and a new target is read; a link to a file in another directory is followed there too.
 */

const ALICE = 'alice-token-0123456789abcdefghijKLMNOPQR'
const BOB = 'bob-token-9876543210zyxwvutsrqPONMLKJIHG'
/** How long a revocation may take: the watcher's settling plus a loaded machine's scheduling. */
const REVOKE_DEADLINE_MS = 10_000

async function status(url: string, token: string): Promise<number> {
  return (await fetch(`${url}/api/v1/keysets`, { headers: { authorization: `Bearer ${token}` } })).status
}

/** Polls until `token` gets `expected`, at most REVOKE_DEADLINE_MS; resolves with the time it took. */
async function untilStatus(url: string, token: string, expected: number): Promise<number> {
  const started = performance.now()
  await waitFor(`${expected} for a token`, async () => (await status(url, token)) === expected, REVOKE_DEADLINE_MS)
  return Math.round(performance.now() - started)
}

/** Kubernetes' atomic update of a projected Secret: a new `..<stamp>` directory, `..data` swapped to it. */
async function swapSecret(dir: string, stamp: string, tokens: string, old: string): Promise<void> {
  await mkdir(join(dir, stamp))
  await writeFile(join(dir, stamp, 'tokens'), tokens, { mode: 0o600 })
  await symlink(stamp, join(dir, '..data_tmp'))
  await rename(join(dir, '..data_tmp'), join(dir, '..data'))
  await rm(join(dir, old), { recursive: true, force: true })
}

async function startNode(name: string, tokensFile: string): Promise<ServerNode> {
  const node = await ServerNode.start({
    name,
    env: { ...ABUSE_SERVER_ENV, MODE: 'production', TOKENS_FILE: tokensFile },
  })
  onTestFinished(async () => {
    await node.stop()
  })
  return node
}

describe('a symlinked TOKENS_FILE reloads when its target changes', () => {
  it('follows a Kubernetes ..data swap: a removed token is refused, an added one accepted', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sealbox-k8s-secret-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    await mkdir(join(dir, '..2026_01'))
    await writeFile(join(dir, '..2026_01', 'tokens'), `alice:${ALICE}\nbob:${BOB}\n`, { mode: 0o600 })
    await symlink('..2026_01', join(dir, '..data'))
    await symlink('..data/tokens', join(dir, 'tokens'))
    const node = await startNode('k8s-tokens', join(dir, 'tokens'))
    expect(await status(node.url, ALICE)).toBe(200)
    expect(await status(node.url, BOB)).toBe(200)
    const idle: HealthStats = await idleHealth(node.url)

    const { result: revokedMs, health } = await duringAttack(node.url, async () => {
      await swapSecret(dir, '..2026_02', `alice:${ALICE}\n`, '..2026_01')
      return untilStatus(node.url, BOB, 401)
    })
    expect(await status(node.url, ALICE)).toBe(200)

    await swapSecret(dir, '..2026_03', `alice:${ALICE}\nbob:${BOB}\n`, '..2026_02')
    const restoredMs = await untilStatus(node.url, BOB, 200)
    expect(node.output()).not.toMatch(/cannot watch TOKENS_FILE/)
    expectHealthy({
      attack: 'M3 symlinked TOKENS_FILE (..data swap)',
      test: 'symlinkTokens.e2e.test.ts',
      answer: `removed token refused after ${revokedMs} ms, re-added accepted after ${restoredMs} ms (before: accepted past 10 s, until SIGHUP)`,
      during: health,
      idle,
    })
  })

  it('follows a link to a file in another directory when that file is replaced', async () => {
    const linkDir = await mkdtemp(join(tmpdir(), 'sealbox-tokens-link-'))
    const targetDir = await mkdtemp(join(tmpdir(), 'sealbox-tokens-target-'))
    onTestFinished(async () => {
      await rm(linkDir, { recursive: true, force: true })
      await rm(targetDir, { recursive: true, force: true })
    })
    await writeFile(join(targetDir, 'tokens'), `alice:${ALICE}\nbob:${BOB}\n`, { mode: 0o600 })
    await symlink(join(targetDir, 'tokens'), join(linkDir, 'tokens'))
    const node = await startNode('linked-tokens', join(linkDir, 'tokens'))
    expect(await status(node.url, BOB)).toBe(200)
    // Replaced the way `mv` does it, in the target's directory only.
    await writeFile(join(targetDir, 'tokens.new'), `alice:${ALICE}\n`, { mode: 0o600 })
    await rename(join(targetDir, 'tokens.new'), join(targetDir, 'tokens'))
    await untilStatus(node.url, BOB, 401)
    expect(await status(node.url, ALICE)).toBe(200)
  })
})

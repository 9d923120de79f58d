import { readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HeError } from '@sealbox/he-core'
import { ServerNode, TempPostgres, waitFor } from '@sealbox/testkit'
import { describe, expect, it, onTestFinished } from 'vitest'
import { type HealthStats, metricSum, metricsText, recordAbuse } from './abuseHarness.ts'
import { ABUSE_SERVER_ENV } from './abuseServer.ts'

/*
 * SIGHUP during start-up (issue 33, M2). The listener used to be installed after
 * `buildServer` returned, so a `systemctl reload` while the key store was still being
 * retried (up to KEY_STORE_CONNECT_TIMEOUT_MS) ended the node by SIGHUP's default, and
 * systemd's Restart=on-failure counts that as a clean exit. Now `main` installs it first:
 * the node lives, keeps retrying, serves once the database is up, and re-reads
 * TOKENS_FILE then for the signal it held.
 */

const ALICE = 'alice-token-0123456789abcdefghijKLMNOPQR'
const NO_PROBE: HealthStats = { samples: 0, failures: 0, p50: 0, p99: 0, max: 0 }

/** The highest `(attempt n)` the node has logged for its key store so far. */
function lastAttempt(log: string): number {
  return Math.max(0, ...[...log.matchAll(/not reachable at start \(attempt (\d+)\)/g)].map((m) => Number(m[1])))
}

/** `check`, but giving up at once (an HeError stops `waitFor`) when the node has exited. */
function whileRunning(node: ServerNode, check: () => boolean): () => boolean {
  return () => {
    if (!node.running) throw new HeError('INTERNAL', `${node.name} exited:\n${node.output().slice(-1500)}`)
    return check()
  }
}

/** Whether process `pid` has a SIGHUP handler installed (bit 0 of SigCgt in /proc, Linux). */
function catchesSighup(pid: number): boolean {
  const mask = /SigCgt:\s+([0-9a-f]+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '0'
  return (BigInt(`0x${mask}`) & 1n) === 1n
}

describe('SIGHUP while the node starts', () => {
  it('is held from the first moments: SIGHUP while the modules load does not end the node', async () => {
    const node = await ServerNode.start({ name: 'early-sighup', env: ABUSE_SERVER_ENV, waitReady: false })
    onTestFinished(async () => {
      await node.stop()
    })
    // The earliest moment a handler can exist: the kernel says the process catches SIGHUP.
    await waitFor(
      'a SIGHUP handler in the process',
      whileRunning(node, () => catchesSighup(node.pid as number)),
      60_000,
    )
    node.signal('SIGHUP')
    await waitFor(
      'the held-SIGHUP line',
      whileRunning(node, () => /SIGHUP during start-up: held/.test(node.output())),
      30_000,
    )
    await waitFor('the node to be ready', async () => (await fetch(`${node.url}/readyz`)).status === 200, 120_000)
    expect(node.running).toBe(true)
  })

  it('does not end a node retrying an unreachable key store; it serves once the store is up', async () => {
    const postgres = await TempPostgres.start()
    onTestFinished(() => postgres.stop())
    const keyStore = await postgres.createDatabase('sealbox')
    await postgres.stopServer()
    const node = await ServerNode.start({
      name: 'startup-sighup',
      env: {
        ...ABUSE_SERVER_ENV,
        MODE: 'production',
        KEY_STORE: keyStore,
        KEY_STORE_CONNECT_TIMEOUT_MS: '600000',
        TOKENS: `alice:${ALICE}`,
      },
      waitReady: false,
    })
    onTestFinished(async () => {
      await node.stop()
    })
    await waitFor('a failed store attempt in the log', () => lastAttempt(node.output()) >= 1, 60_000)
    const before = lastAttempt(node.output())
    node.signal('SIGHUP')
    await waitFor(
      'the held-SIGHUP line',
      whileRunning(node, () => /SIGHUP during start-up: held/.test(node.output())),
      30_000,
    )
    // Still alive and still retrying after the signal: a later attempt is logged.
    await waitFor(
      'another store attempt after SIGHUP',
      whileRunning(node, () => lastAttempt(node.output()) > before),
      60_000,
    )
    expect(node.running).toBe(true)
    node.signal('SIGHUP')
    await waitFor(
      'yet another attempt',
      whileRunning(node, () => lastAttempt(node.output()) > before + 1),
      60_000,
    )
    expect(node.running).toBe(true)
    await postgres.restart()
    await waitFor('the node to be ready', async () => (await fetch(`${node.url}/readyz`)).status === 200, 120_000)
    const healthz = await fetch(`${node.url}/healthz`)
    expect(healthz.status).toBe(200)
    expect(node.output().match(/SIGHUP during start-up: held/g)).toHaveLength(1)
    recordAbuse({
      attack: 'M2 SIGHUP during key-store retry',
      test: 'startupSighup.e2e.test.ts',
      answer: `alive after 2 SIGHUPs across store attempts ${before}→${lastAttempt(node.output())}; ready once the store came up (before: exit by SIGHUP)`,
      during: NO_PROBE,
      idle: NO_PROBE,
    })
  })

  it('re-reads TOKENS_FILE once for a SIGHUP held during start-up', async () => {
    const postgres = await TempPostgres.start()
    onTestFinished(() => postgres.stop())
    const keyStore = await postgres.createDatabase('sealbox')
    await postgres.stopServer()
    const tokensDir = await mkdtemp(join(tmpdir(), 'sealbox-startup-tokens-'))
    onTestFinished(() => rm(tokensDir, { recursive: true, force: true }))
    const tokensFile = join(tokensDir, 'tokens')
    await writeFile(tokensFile, `alice:${ALICE}\n`, { mode: 0o600 })
    const node = await ServerNode.start({
      name: 'startup-sighup-tokens',
      env: { ...ABUSE_SERVER_ENV, MODE: 'production', KEY_STORE: keyStore, TOKENS_FILE: tokensFile },
      waitReady: false,
    })
    onTestFinished(async () => {
      await node.stop()
    })
    await waitFor('a failed store attempt in the log', () => lastAttempt(node.output()) >= 1, 60_000)
    node.signal('SIGHUP')
    await waitFor(
      'the held-SIGHUP line',
      whileRunning(node, () => /SIGHUP during start-up: held/.test(node.output())),
      30_000,
    )
    await postgres.restart()
    await waitFor('the node to be ready', async () => (await fetch(`${node.url}/readyz`)).status === 200, 120_000)
    // The held signal ran the reload once the server was up (the file did not change: "unchanged").
    await waitFor('the held reload in /metrics', async () => {
      return metricSum(await metricsText(node.url), 'sealbox_tokens_file_reloads_total') >= 1
    })
    const list = await fetch(`${node.url}/api/v1/keysets`, { headers: { authorization: `Bearer ${ALICE}` } })
    expect(list.status).toBe(200)
  })
})

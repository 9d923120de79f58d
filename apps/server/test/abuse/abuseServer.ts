import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SealboxClient } from '@sealbox/he-core/client'
import { ServerNode } from '@sealbox/testkit'
import { type SearchSide, searchSide } from '../harness.ts'

/*
 * The server every abuse test attacks: `node src/main.ts` in its own process (so an
 * attack that blocks or crashes it cannot take the test runner down), on its own
 * DATA_DIR, at the suite's small defaults. A file overrides only the settings its
 * attack is about, so those stand out where the attack is written.
 */

/** The synthetic database an abuse server serves (SYNTHETIC_ROWS × SYNTHETIC_DIM, SYNTHETIC_SEED). */
export const ABUSE_DATABASE = { rows: 300, dim: 6, seed: 7 } as const

/**
 * The suite's defaults: the small database, one worker (the attack and the victim share
 * it, which is the hard case), server-side baby steps with g = 2 (so key sets carry
 * Galois keys, the kind forged payloads target), and warnings only in the log.
 */
export const ABUSE_SERVER_ENV: Readonly<Record<string, string>> = {
  WORKERS: '1',
  SYNTHETIC_ROWS: String(ABUSE_DATABASE.rows),
  SYNTHETIC_DIM: String(ABUSE_DATABASE.dim),
  SYNTHETIC_SEED: String(ABUSE_DATABASE.seed),
  SEARCH_BABY_STEPS: 'server',
  SEARCH_BABY_STEP: '2',
  LOG_LEVEL: 'warn',
}

/** A server process (a ServerNode) that owns its DATA_DIR and the search sides made for it. */
export interface AbuseServer {
  url: string
  dataDir: string
  /** The server's process id. */
  pid: number
  /** What the server printed so far. */
  output(): string
  /** A client with no token (it never retries, nor do the clients it makes). */
  client: SealboxClient
  /** A search client and oracle for ABUSE_DATABASE; disposed by `stop()`. */
  searchSide(client?: SealboxClient): Promise<SearchSide>
  /** SIGTERM, wait for the exit, dispose the search sides, remove DATA_DIR unless `keepData`. */
  stop(options?: { keepData?: boolean }): Promise<void>
}

export interface AbuseServerOptions {
  /** Names the fresh DATA_DIR (`sealbox-abuse-<name>-…` in the temp dir), to tell leftovers apart. */
  name?: string
  /** An existing DATA_DIR to serve (a restart), instead of a fresh one; still removed by `stop()`. */
  dataDir?: string
  /** Writes into the fresh DATA_DIR before the server starts (a damaged file, say). */
  beforeStart?: (dataDir: string) => Promise<void>
}

/**
 * Starts `node src/main.ts` with ABUSE_SERVER_ENV, then `env` over it (a setting given as
 * `undefined` is left unset, so the server's own default applies); resolves once it is ready.
 */
export async function spawnAbuseServer(
  env: Record<string, string | undefined> = {},
  options: AbuseServerOptions = {},
): Promise<AbuseServer> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), `sealbox-abuse-${options.name ?? 'server'}-`)))
  const sides: SearchSide[] = []
  let node: ServerNode
  try {
    await options.beforeStart?.(dataDir)
    node = await ServerNode.start({
      name: `abuse-${options.name ?? 'server'}`,
      env: { ...ABUSE_SERVER_ENV, ...env },
      dataDir,
    })
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true })
    throw error
  }
  // Never retried: a 502, 503 or 504 an attacker or a victim got must reach the test.
  const client = new SealboxClient({ baseUrl: node.url, retry: false })
  return {
    url: node.url,
    pid: node.pid as number,
    output: () => node.output(),
    dataDir,
    client,
    async searchSide(as = client) {
      const side = await searchSide(as, ABUSE_DATABASE)
      sides.push(side)
      return side
    },
    async stop(stopOptions = {}) {
      for (const side of sides.splice(0)) side[Symbol.dispose]()
      await node.stop()
      if (!stopOptions.keepData) await rm(dataDir, { recursive: true, force: true })
    },
  }
}

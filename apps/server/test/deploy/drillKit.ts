import { rename, writeFile } from 'node:fs/promises'
import { getHeContext, HeError } from '@sealbox/he-core'
import type { SealboxClient } from '@sealbox/he-core/client'
import {
  PrivateSearchClient,
  plaintextSearchScores,
  type SearchConfig,
  syntheticSearchDatabase,
  syntheticSearchQuery,
  verifySearchConfig,
} from '@sealbox/he-core/search'

/*
 * What the deployment drills share: a keyed search whose every answer is checked
 * against the plaintext oracle, run in a loop that counts successes and failures while
 * a drill breaks something, and a tokens file written the way an operator replaces it.
 */

/** Rows of the drills' synthetic database: small, so a search is quick on a busy machine. */
export const DRILL_ROWS = 600

/** Settings every drill node runs with: production, a keyed (server-side baby steps) search, one worker. */
export function drillNodeEnv(extra: Record<string, string>): Record<string, string> {
  return { MODE: 'production', WORKERS: '1', SYNTHETIC_ROWS: String(DRILL_ROWS), SEARCH_BABY_STEPS: 'server', ...extra }
}

/** Replaces a file the way `mv` does (write beside it, rename over it): readers see the old or the new one. */
export async function replaceFile(path: string, text: string): Promise<void> {
  await writeFile(`${path}.new`, text, { mode: 0o600 })
  await rename(`${path}.new`, path)
}

/** One tenant's keyed search: keys uploaded, one encrypted query, the oracle's scores. */
export interface KeyedSearch {
  config: SearchConfig
  search: PrivateSearchClient
  query: Uint8Array
  oracle: number[]
  /** One search through `client`; throws unless the decrypted scores equal the oracle. */
  run(client: SealboxClient): Promise<void>
}

/** Uploads a key set `keySet` through `client` and prepares a query with its oracle (the nodes' synthetic database of `rows`). */
export async function keyedSearch(client: SealboxClient, keySet = 'main', rows = DRILL_ROWS): Promise<KeyedSearch> {
  const config = verifySearchConfig(await client.searchConfig())
  const ctx = await getHeContext(config.params)
  const search = PrivateSearchClient.create(ctx, config)
  const keys = search.evaluationKeys()
  if (!keys) throw new HeError('INTERNAL', 'the drill config must need Galois keys (SEARCH_BABY_STEPS=server)')
  await client.putKeySet(keySet, keys)
  const vector = syntheticSearchQuery(config.dimension, 9)
  const database = syntheticSearchDatabase({ rows, dimension: config.dimension, seed: 1 })
  const oracle = [...plaintextSearchScores(config, database, vector)]
  const query = search.encryptQuery(vector)
  return {
    config,
    search,
    query,
    oracle,
    async run(searchClient) {
      const { responses } = await searchClient.search(query, { keySet })
      const scores = [...search.decryptScores(responses).scores]
      if (scores.length !== oracle.length || scores.some((score, i) => score !== oracle[i])) {
        throw new HeError('INTERNAL', 'a search answered scores that differ from the oracle')
      }
    },
  }
}

/** Counts of a search loop. */
export interface LoopCounts {
  ok: number
  failed: number
  /** The first few failures, for the test's message. */
  errors: string[]
}

/**
 * The pace of a drill whose subject is a window of seconds (a restart, an outage): one
 * search a second still puts several in every window, and leaves the nodes the CPU to
 * start and warm up.
 */
export const DRILL_SEARCH_INTERVAL_MS = 1000

/** How a `SearchLoop` runs. */
export interface SearchLoopOptions {
  /**
   * Starts a search at most once per this many ms (0: back to back). A rate limit, not an
   * ordering: drills wait on `waitForOk` counts and on their own events, and a paced loop
   * still covers every phase of a drill, at a fraction of the CPU a loop spinning on
   * searches (or on instant failures while a shard is down) spends.
   */
  intervalMs?: number
}

/**
 * Runs `once` until `stop()` (back to back, or paced by `intervalMs`), counting successes
 * and failures; `waitForOk(n)` resolves once `n` more searches have succeeded (how a drill
 * knows traffic flows).
 */
export class SearchLoop {
  readonly counts: LoopCounts = { ok: 0, failed: 0, errors: [] }
  #stopped = false
  #waiters: Array<{ target: number; resolve: () => void }> = []
  /** Ends the pause between two paced searches early (on `stop()`). */
  #wake: (() => void) | undefined
  readonly #done: Promise<void>

  constructor(once: () => Promise<void>, options: SearchLoopOptions = {}) {
    const intervalMs = options.intervalMs ?? 0
    this.#done = (async () => {
      while (!this.#stopped) {
        const started = performance.now()
        try {
          await once()
          this.counts.ok++
        } catch (error) {
          this.counts.failed++
          if (this.counts.errors.length < 5) this.counts.errors.push(String(error))
        }
        this.#waiters = this.#waiters.filter((waiter) => {
          if (this.counts.ok < waiter.target) return true
          waiter.resolve()
          return false
        })
        const rest = started + intervalMs - performance.now()
        if (rest > 0 && !this.#stopped) await this.#pause(rest)
      }
    })()
  }

  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.#wake?.(), ms)
      this.#wake = () => {
        clearTimeout(timer)
        this.#wake = undefined
        resolve()
      }
    })
  }

  /** Resolves when `more` further searches have succeeded. */
  waitForOk(more: number): Promise<void> {
    const target = this.counts.ok + more
    return new Promise((resolve) => this.#waiters.push({ target, resolve }))
  }

  /** Stops after the search in flight and returns the counts. */
  async stop(): Promise<LoopCounts> {
    this.#stopped = true
    this.#wake?.()
    await this.#done
    return this.counts
  }
}

/** The status a direct call with `token` gets from a node (200, or 401 for an unknown token). */
export async function statusWithToken(url: string, token: string): Promise<number> {
  const response = await fetch(`${url}/api/v1/keysets`, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(5000),
  })
  await response.arrayBuffer()
  return response.status
}

/** A node's key-store state as /readyz reports it (`not ready (status)` when it is out of rotation). */
export interface StoreStatus {
  status: string
  staleServes: number
}

export async function storeOf(node: { url: string }): Promise<StoreStatus> {
  const response = await fetch(`${node.url}/readyz`, { signal: AbortSignal.timeout(5000) })
  const body = (await response.json()) as { ready: boolean; store: StoreStatus }
  return {
    ...body.store,
    ...(response.status === 200 && body.ready ? {} : { status: `not ready (${response.status})` }),
  }
}

/** One unlabelled metric of a node's /metrics (NaN when absent). */
export async function metric(node: { url: string }, name: string): Promise<number> {
  const text = await (await fetch(`${node.url}/metrics`, { signal: AbortSignal.timeout(5000) })).text()
  const line = text.split('\n').find((row) => row.startsWith(`${name} `))
  return Number(line?.split(' ')[1] ?? Number.NaN)
}

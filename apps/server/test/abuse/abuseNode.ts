import { SealboxClient } from '@sealbox/he-core/client'
import { expect } from 'vitest'
import { percentile } from '../../../../packages/bench/src/harness/stats.ts'
import { ServerNode } from '../../src/testing/ServerNode.ts'
import { type SearchSide, searchSide } from '../harness.ts'
import { ABUSE_DATABASE, ABUSE_SERVER_ENV } from './abuseServer.ts'

/*
 * The abuse suite's server as a `ServerNode` (a real `node src/main.ts` process), with a
 * victim: another tenant that keeps searching while an attack runs. A test takes the
 * victim's baseline before the attack and compares what it saw during the attack with it
 * by a generous factor — never with an absolute number of ms.
 */

/** Another tenant with its Galois keys stored as `k`, searching the abuse database. */
export interface Victim {
  client: SealboxClient
  side: SearchSide
  /** One search, checked against the plaintext oracle; resolves with its latency in ms. */
  search(): Promise<number>
}

/** A server process at the abuse suite's defaults, and a victim tenant on it. */
export interface AbuseNode {
  node: ServerNode
  url: string
  /** A client with no token. */
  client: SealboxClient
  victim: Victim
  stop(): Promise<void>
}

/** Starts a `ServerNode` with ABUSE_SERVER_ENV, then `env` over it, and warms a victim tenant. */
export async function startAbuseNode(name: string, env: Record<string, string> = {}): Promise<AbuseNode> {
  const node = await ServerNode.start({ name: `abuse-${name}`, env: { ...ABUSE_SERVER_ENV, ...env } })
  let side: SearchSide | undefined
  try {
    const client = new SealboxClient({ baseUrl: node.url })
    const victimClient = (await client.createSession()).client
    side = await searchSide(victimClient, ABUSE_DATABASE)
    await victimClient.putKeySet('k', side.keys as Uint8Array)
    const query = side.query(3)
    const victimSide = side
    const victim: Victim = {
      client: victimClient,
      side: victimSide,
      async search() {
        const started = performance.now()
        const result = await victimClient.search(query.bytes, { keySet: 'k' })
        const elapsed = performance.now() - started
        expect(Array.from(victimSide.search.decryptScores(result.responses).scores)).toEqual(Array.from(query.expected))
        return elapsed
      },
    }
    // Warm the worker's key cache so the baseline is the working latency.
    await victim.search()
    return {
      node,
      url: node.url,
      client,
      victim,
      async stop() {
        victimSide[Symbol.dispose]()
        await node.stop()
      },
    }
  } catch (error) {
    side?.[Symbol.dispose]()
    await node.stop()
    throw error
  }
}

/** Latencies of the victim's searches: the median and the slowest, ms. */
export interface VictimStats {
  searches: number
  p50: number
  max: number
}

function victimStatsOf(latencies: number[]): VictimStats {
  const sorted = [...latencies].sort((a, b) => a - b)
  const round = (ms: number) => Math.round(ms * 10) / 10
  return { searches: sorted.length, p50: round(percentile(sorted, 0.5)), max: round(sorted.at(-1) ?? 0) }
}

/** The victim's latency on an idle server: `count` searches one after another. */
export async function victimBaseline(victim: Victim, count = 5): Promise<VictimStats> {
  const latencies: number[] = []
  for (let i = 0; i < count; i++) latencies.push(await victim.search())
  return victimStatsOf(latencies)
}

/**
 * Runs `attack` while the victim searches one query after another (at least one search
 * always completes: the first starts with the attack and the loop stops once the attack
 * has settled and the search in flight has answered).
 */
export async function victimDuring<T>(
  victim: Victim,
  attack: () => Promise<T>,
): Promise<{ result: T; victim: VictimStats }> {
  const latencies: number[] = []
  let done = false
  const searching = (async () => {
    do latencies.push(await victim.search())
    while (!done)
  })()
  try {
    const result = await attack()
    done = true
    await searching
    return { result, victim: victimStatsOf(latencies) }
  } catch (error) {
    done = true
    await searching.catch(() => undefined)
    throw error
  }
}

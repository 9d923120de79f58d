import { readFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { SealboxClient } from '@sealbox/he-core/client'
import { percentile } from '@sealbox/he-core/testing'
import { ServerNode } from '@sealbox/testkit'
import { expect } from 'vitest'
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
  /** A client with no token (it never retries, nor do the clients it makes). */
  client: SealboxClient
  victim: Victim
  stop(): Promise<void>
}

/**
 * Starts a `ServerNode` with ABUSE_SERVER_ENV, then `env` over it (a setting given as
 * `undefined` is left unset, so the server's own default applies), and warms a victim
 * tenant. Its clients never retry: a 502, 503 or 504 an attacker or the victim got is
 * what the test must see, not something a retry hides.
 */
export async function startAbuseNode(name: string, env: Record<string, string | undefined> = {}): Promise<AbuseNode> {
  const node = await ServerNode.start({ name: `abuse-${name}`, env: { ...ABUSE_SERVER_ENV, ...env } })
  let side: SearchSide | undefined
  try {
    const client = new SealboxClient({ baseUrl: node.url, retry: false })
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

/** Latencies of the victim's searches (failed ones included): the median and the slowest, ms. */
export interface VictimStats {
  searches: number
  p50: number
  max: number
  /** Searches that failed, by error code (`{}` when none did). */
  failed: Record<string, number>
}

function victimStatsOf(latencies: number[], failures: string[] = []): VictimStats {
  const sorted = [...latencies].sort((a, b) => a - b)
  const round = (ms: number) => Math.round(ms * 10) / 10
  const failed: Record<string, number> = {}
  for (const code of failures) failed[code] = (failed[code] ?? 0) + 1
  return { searches: sorted.length, p50: round(percentile(sorted, 0.5)), max: round(sorted.at(-1) ?? 0), failed }
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
 * has settled and the search in flight has answered, or after `maxSearches` — for a
 * victim whose own cost budget is small). A failed search is counted by its code, with
 * its latency.
 */
export async function victimDuring<T>(
  victim: Victim,
  attack: () => Promise<T>,
  options: { maxSearches?: number } = {},
): Promise<{ result: T; victim: VictimStats }> {
  const maxSearches = options.maxSearches ?? Number.POSITIVE_INFINITY
  const latencies: number[] = []
  const failures: string[] = []
  let done = false
  const searching = (async () => {
    do {
      const started = performance.now()
      try {
        await victim.search()
      } catch (error) {
        // What the victim saw is the finding: recorded, and the test asserts none failed.
        failures.push((error as { code?: string }).code ?? String(error))
      }
      latencies.push(performance.now() - started)
    } while (!done && latencies.length < maxSearches)
  })()
  try {
    const result = await attack()
    done = true
    await searching
    return { result, victim: victimStatsOf(latencies, failures) }
  } catch (error) {
    done = true
    await searching.catch(() => undefined)
    throw error
  }
}

/** An answer as data: status, error code, the parsed JSON body (when it is JSON). */
export interface RawAnswer {
  status: number
  code: string | undefined
  json: Record<string, unknown>
  headers: Record<string, string | string[] | undefined>
}

/**
 * One HTTP request from a chosen loopback address (all of 127/8 reaches a server on
 * 127.0.0.1), on its own connection: for per-address limits.
 */
export function requestFrom(
  url: string,
  localAddress: string,
  options: { method: string; path: string; token?: string; headers?: Record<string, string>; body?: Uint8Array },
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...options.headers }
    if (options.token) headers.authorization = `Bearer ${options.token}`
    if (options.body) {
      headers['content-type'] = 'application/octet-stream'
      headers['content-length'] = options.body.length
    }
    const req = httpRequest(
      new URL(options.path, url),
      { method: options.method, headers, localAddress, agent: false },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString()
          let json: Record<string, unknown> = {}
          try {
            json = JSON.parse(text) as Record<string, unknown>
          } catch {
            json = {}
          }
          const error = json.error as { code?: string } | undefined
          resolve({ status: res.statusCode ?? 0, code: error?.code, json, headers: res.headers })
        })
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(options.body)
  })
}

/** A new anonymous session's token, asked for from `localAddress`. */
export async function sessionFrom(url: string, localAddress: string): Promise<string> {
  const answer = await requestFrom(url, localAddress, { method: 'POST', path: '/api/v1/session' })
  if (answer.status !== 201) throw new Error(`no session from ${localAddress}: ${answer.status} ${answer.code}`)
  return answer.json.token as string
}

/** Peak and current resident set size of a process, from /proc (Linux). */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1]) * 1024
  return { rss: kb('VmRSS'), peak: kb('VmHWM') }
}

/**
 * A `fetch` whose requests leave from `localAddress` (all of 127/8 reaches a server on
 * 127.0.0.1), each on its own connection: for a `SealboxClient` that must count as
 * another client address than the test's other clients.
 */
export function fetchFrom(localAddress: string): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init)
    const body = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined
    return new Promise<Response>((resolve, reject) => {
      const headers: Record<string, string> = {}
      request.headers.forEach((value, name) => {
        headers[name] = value
      })
      if (body) headers['content-length'] = String(body.length)
      const req = httpRequest(request.url, { method: request.method, headers, localAddress, agent: false }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => {
          const replyHeaders = new Headers()
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) replyHeaders.set(name, Array.isArray(value) ? value.join(', ') : value)
          }
          const status = res.statusCode ?? 0
          const empty = status === 204 || status === 304 || request.method === 'HEAD'
          resolve(new Response(empty ? null : Buffer.concat(chunks), { status, headers: replyHeaders }))
        })
        res.on('error', reject)
      })
      req.on('error', reject)
      req.end(body)
    })
  }
}

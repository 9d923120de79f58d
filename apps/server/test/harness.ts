import { randomUUID } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getHeContext, HeError } from '@sealbox/he-core'
import { SEALBOX_HEADERS, SealboxClient, type ServerExecutorMode } from '@sealbox/he-core/client'
import {
  PrivateSearchClient,
  plaintextSearchScores,
  type SearchConfig,
  syntheticSearchDatabase,
  syntheticSearchQuery,
} from '@sealbox/he-core/search'
import { waitFor } from '@sealbox/testkit'
import type { FastifyInstance } from 'fastify'
import { buildServer } from '../src/app/buildServer.ts'
import { configFor } from '../src/config/loadConfig.ts'
import type { ServerConfigInput } from '../src/config/ServerConfig.ts'

/*
 * Real servers for the end-to-end suites: a real Fastify app on a real port with
 * real worker threads / child processes and real SEAL, at small parameters, in the
 * test's process (`startServer`). A server in its own process, as users run it, is
 * a `ServerNode` (@sealbox/testkit).
 */

/** Small defaults: a 300 × 6 database, server-side baby steps with g = 2 (so Galois keys are needed). */
export const TEST_SERVER_DEFAULTS: Partial<ServerConfigInput> = {
  PORT: 0,
  HOST: '127.0.0.1',
  LOG_LEVEL: 'silent',
  WORKERS: 1,
  SYNTHETIC_ROWS: 300,
  SYNTHETIC_DIM: 6,
  SYNTHETIC_SEED: 7,
  SEARCH_BABY_STEPS: 'server',
  SEARCH_BABY_STEP: 2,
  FAULT_INJECTION: true,
  REQUEST_TIMEOUT_MS: 20_000,
  // No wall-clock load shedding unless a test asks for it (as ServerNode): this server shares
  // its event loop with the test's own SEAL work (key generation holds the loop for seconds
  // on a busy machine), so a 1 s delay bound would refuse requests by the machine's speed.
  MAX_EVENT_LOOP_DELAY_MS: 0,
}

/** A running server and a client for it. */
export interface TestServer {
  app: FastifyInstance
  url: string
  dataDir: string
  /** A client with no token. */
  client: SealboxClient
  /** A client with a fresh anonymous tenant. */
  tenant(): Promise<SealboxClient>
  close(options?: { keepData?: boolean }): Promise<void>
}

export async function startServer(overrides: Partial<ServerConfigInput> = {}): Promise<TestServer> {
  const dataDir = overrides.DATA_DIR ?? (await mkdtemp(join(tmpdir(), 'sealbox-server-test-')))
  const config = configFor({ ...TEST_SERVER_DEFAULTS, ...overrides, DATA_DIR: dataDir })
  const app = await buildServer(config)
  const address = await app.listen({ port: config.PORT, host: config.HOST })
  await app.sealbox.warmup
  const client = new SealboxClient({ baseUrl: address })
  await client.waitUntilReady(60_000)
  return {
    app,
    url: address,
    dataDir,
    client,
    async tenant() {
      return (await client.createSession()).client
    },
    async close(options = {}) {
      await app.close()
      if (!options.keepData) await rm(dataDir, { recursive: true, force: true })
    },
  }
}

/** A search client for what a server serves, plus the plaintext oracle of the same database. */
export interface SearchSide extends Disposable {
  config: SearchConfig
  search: PrivateSearchClient
  /** The Galois keys envelope to upload (null when the config needs none). */
  keys: Uint8Array | null
  /** An encrypted query (in the served wire encoding unless `options` says otherwise) and its expected scores. */
  query(
    seed: number,
    options?: Parameters<PrivateSearchClient['encryptQuery']>[1],
  ): { vector: Float64Array; bytes: Uint8Array; expected: Float64Array }
}

export async function searchSide(client: SealboxClient, database: { rows: number; dim: number; seed: number }) {
  const served = await client.searchConfig()
  const { database: _facts, fingerprint: _fingerprint, ...config } = served
  const searchConfig: SearchConfig = config
  const ctx = await getHeContext(searchConfig.params)
  const search = PrivateSearchClient.create(ctx, searchConfig)
  const plain = syntheticSearchDatabase({ rows: database.rows, dimension: database.dim, seed: database.seed })
  const side: SearchSide = {
    config: searchConfig,
    search,
    keys: search.evaluationKeys(),
    query(seed, options) {
      const vector = syntheticSearchQuery(database.dim, seed)
      return {
        vector,
        bytes: search.encryptQuery(vector, options),
        expected: plaintextSearchScores(searchConfig, plain, vector),
      }
    },
    [Symbol.dispose]() {
      search.dispose()
    },
  }
  return side
}

/** The code of an HeError a promise rejects with (fails the test if it resolves). */
export async function errorOf(promise: Promise<unknown>): Promise<HeError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof HeError) return error
    throw error
  }
  throw new Error('expected the call to fail')
}

/** A raw HTTP call (for what the typed client never sends: bad JSON, wrong types…). */
export async function raw(
  url: string,
  init: Omit<RequestInit, 'body'> & { token?: string; body?: BodyInit | Uint8Array } = {},
): Promise<{
  status: number
  headers: Headers
  json: { error?: { code: string; message: string } } & Record<string, unknown>
}> {
  const headers = new Headers(init.headers)
  if (init.token) headers.set('authorization', `Bearer ${init.token}`)
  const { body, token: _token, ...rest } = init
  const response = await fetch(url, {
    ...rest,
    headers,
    ...(body === undefined ? {} : { body: body as BodyInit }),
  })
  const text = await response.text()
  let json: Record<string, unknown> = {}
  try {
    json = JSON.parse(text) as Record<string, unknown>
  } catch {
    json = { text }
  }
  return { status: response.status, headers: response.headers, json }
}

/** Ciphertext scores decrypted from search responses, as plain numbers. */
export function scoresOf(side: SearchSide, responses: readonly Uint8Array[]): Float64Array[] {
  return responses.map((response) => side.search.decryptScores(response).scores)
}

/** An executor's queue as `/metrics` reports it: jobs waiting for a worker and jobs running. */
export interface QueueState {
  queued: number
  running: number
}

/** The queue of executor `mode` (`pool`, `inline`, `process`) from the server's `/metrics`. */
export async function queueState(url: string, mode: ServerExecutorMode = 'pool'): Promise<QueueState> {
  const text = await (await fetch(`${url}/metrics`)).text()
  const gauge = (name: string) =>
    Number(new RegExp(`^${name}\\{executor="${mode}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0)
  return { queued: gauge('sealbox_queue_depth'), running: gauge('sealbox_jobs_running') }
}

/** Waits until the queue of `mode` satisfies `ready` (an event we observe, never a sleep). */
export async function untilQueue(
  url: string,
  ready: (state: QueueState) => boolean,
  what: string,
  mode: ServerExecutorMode = 'pool',
): Promise<void> {
  await waitFor(what, async () => ready(await queueState(url, mode)))
}

/** A job holding a worker until `release()`: a barrier the test controls. */
export interface HeldWorker {
  /** The gate's name: creating DATA_DIR/fault-gates/<gate> releases the job too (a server that no longer takes requests). */
  gate: string
  /** The held request's answer (200 once released). */
  done: Promise<Awaited<ReturnType<typeof raw>>>
  /** Opens the gate: the held job finishes and the worker takes the next job. */
  release(): Promise<void>
}

/**
 * Occupies one worker of `mode` with the `hold` fault (FAULT_INJECTION) and resolves
 * once the job runs (the queue shows it running), so what the test sends next queues
 * behind it for as long as the test wants.
 */
export async function holdWorker(
  url: string,
  token: string,
  options: { mode?: ServerExecutorMode } = {},
): Promise<HeldWorker> {
  const mode = options.mode ?? 'pool'
  const before = await queueState(url, mode)
  const gate = randomUUID()
  const done = raw(`${url}/api/v1/_faults/hold?gate=${gate}`, {
    method: 'POST',
    token,
    ...(options.mode ? { headers: { [SEALBOX_HEADERS.executor]: options.mode } } : {}),
  })
  await untilQueue(url, (state) => state.running > before.running, `the held job to run on ${mode}`, mode)
  return {
    gate,
    done,
    async release() {
      const opened = await raw(`${url}/api/v1/_faults/gates/${gate}`, { method: 'POST', token })
      if (opened.status !== 200) throw new Error(`could not open gate ${gate}: ${opened.status}`)
    },
  }
}

export { HeError }

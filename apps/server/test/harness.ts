import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { getHeContext, HeError } from '@sealbox/he-core'
import { SealboxClient } from '@sealbox/he-core/client'
import {
  PrivateSearchClient,
  plaintextSearchScores,
  type SearchConfig,
  syntheticSearchDatabase,
  syntheticSearchQuery,
} from '@sealbox/he-core/search'
import type { FastifyInstance } from 'fastify'
import { buildServer } from '../src/app/buildServer.ts'
import { CONFIG_KEYS, configFor } from '../src/config/loadConfig.ts'
import type { ServerConfigInput } from '../src/config/ServerConfig.ts'

/*
 * Real servers for the end-to-end suites: a real Fastify app on a real port with
 * real worker threads / child processes and real SEAL, at small parameters.
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
  query(seed: number): { vector: Float64Array; bytes: Uint8Array; expected: Float64Array }
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
    query(seed) {
      const vector = syntheticSearchQuery(database.dim, seed)
      return {
        vector,
        bytes: search.encryptQuery(vector),
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

/** Our environment minus server settings (vitest sets MODE=test, for one). */
export function inheritedEnv(): Record<string, string | undefined> {
  const env = { ...process.env }
  for (const key of CONFIG_KEYS) delete env[key]
  return env
}

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url))

/** The server as users run it: `node src/main.ts` in a child process. */
export interface SpawnedServer {
  process: ChildProcess
  url: string
  output(): string
  /** Resolves with the exit code. */
  exited: Promise<number | null>
}

export async function spawnServer(env: Record<string, string>): Promise<SpawnedServer> {
  const child = spawn(process.execPath, ['--conditions=@sealbox/source', MAIN], {
    env: { ...inheritedEnv(), LOG_LEVEL: 'info', PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not listen:\n${output}`)), 60_000)
    const check = () => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve(match[1] as string)
      }
    }
    child.stdout?.on('data', check)
    child.stderr?.on('data', check)
    void exited.then((code) => reject(new Error(`server exited (${code}) before listening:\n${output}`)))
  })
  await new SealboxClient({ baseUrl: url }).waitUntilReady(60_000)
  return { process: child, url, output: () => output, exited }
}

/** Ciphertext scores decrypted from search responses, as plain numbers. */
export function scoresOf(side: SearchSide, responses: readonly Uint8Array[]): Float64Array[] {
  return responses.map((response) => side.search.decryptScores(response).scores)
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

export { HeError }

import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  bytesToBase64,
  encodeBatch,
  encryptSymmetric,
  getHeContext,
  KeySet,
  SealboxClient,
  saveSealObject,
  withScope,
} from '@sealbox/he-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { raw, type SearchSide, type SpawnedServer, searchSide, spawnServer } from '../harness.ts'
import { duringAttack, HEALTHZ_P99_LIMIT_MS, type HealthStats, idleHealth, recordAbuse } from './abuseHarness.ts'

/*
 * Issue item 2.1: `npm start` lets any client pick the comparison-only `inline`
 * executor, which runs HE on the event loop. It must not wear out (its SEAL instance
 * is replaced like a worker's), never make the server unready, take only small jobs,
 * and be rate-limited per client address.
 */

const database = { rows: 300, dim: 6, seed: 7 }
const RECYCLE = 50
const FILE = 'inlineExecutor.e2e.test.ts'

async function startServer(dataDir: string, env: Record<string, string> = {}): Promise<SpawnedServer> {
  return spawnServer({
    WORKERS: '1',
    SYNTHETIC_ROWS: String(database.rows),
    SYNTHETIC_DIM: String(database.dim),
    SYNTHETIC_SEED: String(database.seed),
    SEARCH_BABY_STEPS: 'server',
    SEARCH_BABY_STEP: '2',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    ALLOW_EXECUTOR_OVERRIDE: 'true',
    SEAL_ERROR_RECYCLE: String(RECYCLE),
    ...env,
  })
}

async function stop(server: SpawnedServer | undefined): Promise<void> {
  if (!server) return
  server.process.kill('SIGTERM')
  await server.exited
}

async function metric(url: string, pattern: RegExp): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text()
  return Number(pattern.exec(text)?.[1] ?? 0)
}

const inlineReplacements = (url: string) =>
  metric(url, /sealbox_worker_replacements_total\{executor="inline",reason="sealExceptions"\} (\d+)/)

/**
 * A program that passes every check before SEAL and that SEAL then refuses with a C++
 * exception: `x − y` where the client sent the same ciphertext as both inputs, so the
 * result is transparent (an unencrypted zero). Nothing before SEAL compares inputs,
 * so any client can make SEAL throw this way, once per request.
 */
async function transparentResultBody(): Promise<string> {
  const params = { scheme: 'bfv', polyModulusDegree: 4096, plainModulus: { batchingBits: 20 } } as const
  const ctx = await getHeContext(params)
  using keys = KeySet.generate(ctx, {})
  const x = withScope((scope) =>
    saveSealObject(encryptSymmetric(keys, encodeBatch(ctx, [1, 2, 3], scope), scope), {
      kind: 'ciphertext',
      fingerprint: ctx.fingerprint,
      keySetId: keys.id,
      compression: 'zstd',
    }),
  )
  return JSON.stringify({
    params,
    program: {
      version: 1,
      inputs: [
        { name: 'x', kind: 'ciphertext' },
        { name: 'y', kind: 'ciphertext' },
      ],
      steps: [{ op: 'sub', a: 'x', b: 'y', out: 'r' }],
      outputs: ['r'],
    },
    inputs: { x: bytesToBase64(x), y: bytesToBase64(x) },
  })
}

/** An n = 16384 BFV program of multiplies: no keys needed, far above MAX_INLINE_COST. */
const expensiveProgram = {
  params: { scheme: 'bfv', polyModulusDegree: 16384, plainModulus: { batchingBits: 20 } },
  program: {
    version: 1,
    inputs: [
      { name: 'x', kind: 'ciphertext' },
      { name: 'y', kind: 'ciphertext' },
    ],
    steps: [
      { op: 'multiply', a: 'x', b: 'y', out: 'xy' },
      { op: 'multiply', a: 'xy', b: 'y', out: 'r' },
    ],
    outputs: ['r'],
  },
  // Never read: the request is refused before any input is loaded.
  inputs: { x: 'AAAA', y: 'AAAA' },
}

describe('the inline executor cannot stall, starve or wedge the server (2.1)', () => {
  let dataDir: string
  let server: SpawnedServer
  let client: SealboxClient
  let token: string
  let side: SearchSide
  let idle: HealthStats

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sealbox-abuse-inline-'))
    server = await startServer(dataDir, { EXECUTOR_OVERRIDE_RATE: '1000', EXECUTOR_OVERRIDE_BURST: '1000' })
    const session = await new SealboxClient({ baseUrl: server.url }).createSession()
    client = session.client
    token = session.session.token
    side = await searchSide(client, database)
    await client.putKeySet('k', side.keys as Uint8Array)
    idle = await idleHealth(server.url)
  }, 120_000)

  afterAll(async () => {
    side?.[Symbol.dispose]()
    await stop(server)
    await rm(dataDir, { recursive: true, force: true })
  })

  it('replaces its SEAL instance after SEAL_ERROR_RECYCLE caught exceptions and stays ready', async () => {
    const before = await inlineReplacements(server.url)
    const body = await transparentResultBody()
    const total = 2 * RECYCLE + 10
    const { result: codes, health } = await duringAttack(server.url, async () => {
      const seen = new Map<string, number>()
      for (let i = 0; i < total; i++) {
        const answer = await raw(`${server.url}/api/v1/evaluate`, {
          method: 'POST',
          token,
          body,
          headers: { 'content-type': 'application/json', 'x-sealbox-executor': 'inline' },
        })
        const key = `${answer.status} ${answer.json.error?.code}`
        seen.set(key, (seen.get(key) ?? 0) + 1)
      }
      return Object.fromEntries(seen)
    })
    // Every request made SEAL throw; none found a worn-out instance.
    expect(codes).toEqual({ '422 SEAL_ERROR': total })
    expect(await inlineReplacements(server.url)).toBeGreaterThanOrEqual(before + 2)
    const ready = await raw(`${server.url}/readyz`)
    expect(ready.status).toBe(200)
    const inline = (ready.json.executors as Array<{ mode: string; replacements: number }>).find(
      (executor) => executor.mode === 'inline',
    )
    expect(inline?.replacements).toBeGreaterThanOrEqual(2)
    // The fresh instance answers correctly.
    const q = side.query(10)
    const result = await client.with({ executor: 'inline' }).search(q.bytes, { keySet: 'k' })
    expect(result.executor).toBe('inline')
    expect(Array.from(side.search.decryptScores(result.responses).scores)).toEqual(Array.from(q.expected))
    expect(health.failures).toBe(0)
    expect(health.p99).toBeLessThan(HEALTHZ_P99_LIMIT_MS)
    recordAbuse({
      item: '2.1',
      test: `${FILE} › replaces its SEAL instance after SEAL_ERROR_RECYCLE caught exceptions and stays ready`,
      answer: `${total}× 422 SEAL_ERROR (transparent result), then /readyz 200 and a correct inline search`,
      during: health,
      idle,
    })
  })

  it('refuses an expensive program up front, naming its cost and MAX_INLINE_COST', async () => {
    const { result: answer, health } = await duringAttack(server.url, async () => {
      const answers = []
      for (let i = 0; i < 40; i++) {
        answers.push(
          await raw(`${server.url}/api/v1/evaluate`, {
            method: 'POST',
            token,
            body: JSON.stringify(expensiveProgram),
            headers: { 'content-type': 'application/json', 'x-sealbox-executor': 'inline' },
          }),
        )
      }
      return answers
    })
    for (const { status, json } of answer) {
      expect([status, json.error?.code]).toEqual([422, 'LIMIT_EXCEEDED'])
      expect(json.error?.message).toMatch(/costs about [\d,]+ cost units/)
      expect(json.error?.message).toMatch(/at most 100 \(MAX_INLINE_COST\)/)
    }
    expect(health.failures).toBe(0)
    expect(health.p99).toBeLessThan(HEALTHZ_P99_LIMIT_MS)
    recordAbuse({
      item: '2.1',
      test: `${FILE} › refuses an expensive program up front, naming its cost and MAX_INLINE_COST`,
      answer: '422 LIMIT_EXCEEDED',
      during: health,
      idle,
    })
  })
})

describe('executor override rate limit (2.1)', () => {
  let dataDir: string
  let server: SpawnedServer

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sealbox-abuse-override-'))
    server = await startServer(dataDir, { EXECUTOR_OVERRIDE_RATE: '0.5', EXECUTOR_OVERRIDE_BURST: '5' })
  }, 120_000)

  afterAll(async () => {
    await stop(server)
    await rm(dataDir, { recursive: true, force: true })
  })

  it('answers 429 RATE_LIMITED with Retry-After past the burst, and still serves requests without the override', async () => {
    const idle = await idleHealth(server.url)
    const { client, session } = await new SealboxClient({ baseUrl: server.url }).createSession()
    const token = session.token
    using side = await searchSide(client, database)
    await client.putKeySet('k', side.keys as Uint8Array)
    const q = side.query(3)
    const { result, health } = await duringAttack(server.url, async () => {
      const answers = []
      for (let i = 0; i < 12; i++) {
        answers.push(
          await raw(`${server.url}/api/v1/search?keySet=k`, {
            method: 'POST',
            token,
            body: q.bytes,
            headers: { 'content-type': 'application/octet-stream', 'x-sealbox-executor': 'inline' },
          }),
        )
      }
      // The same client, same tenant, without the header: served by the default executor.
      const plain = await client.search(q.bytes, { keySet: 'k' })
      return { statuses: answers.map((answer) => answer.status), limited: answers.find((a) => a.status === 429), plain }
    })
    expect(result.statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200])
    expect(result.statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(6)
    expect(result.limited?.json.error?.code).toBe('RATE_LIMITED')
    expect(result.limited?.json.error?.message).toMatch(/EXECUTOR_OVERRIDE_RATE/)
    expect(Number(result.limited?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(result.plain.executor).toBe('pool')
    expect(Array.from(side.search.decryptScores(result.plain.responses).scores)).toEqual(Array.from(q.expected))
    expect(health.failures).toBe(0)
    expect(health.p99).toBeLessThan(HEALTHZ_P99_LIMIT_MS)
    recordAbuse({
      item: '2.1',
      test: `${FILE} › answers 429 RATE_LIMITED with Retry-After past the burst, and still serves requests without the override`,
      answer: '429 RATE_LIMITED (Retry-After), 200 without the override',
      during: health,
      idle,
    })
  })
})

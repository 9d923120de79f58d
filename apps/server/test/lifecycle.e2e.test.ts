import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SealboxClient } from '@sealbox/he-core/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorOf, inheritedEnv, raw, searchSide, sleep, spawnServer } from './harness.ts'

const database = { rows: 300, dim: 6, seed: 7 }
const SMALL = {
  WORKERS: '1',
  SYNTHETIC_ROWS: '300',
  SYNTHETIC_DIM: '6',
  SYNTHETIC_SEED: '7',
  SEARCH_BABY_STEPS: 'server',
  SEARCH_BABY_STEP: '2',
}

describe('the server as users run it (node src/main.ts)', () => {
  let dataDir: string
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sealbox-lifecycle-'))
  })
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true })
  })

  it('keeps key sets (and anonymous tokens) across a restart', async () => {
    const env = { ...SMALL, DATA_DIR: dataDir }
    const first = await spawnServer(env)
    const { session, client } = await new SealboxClient({ baseUrl: first.url }).createSession()
    using side = await searchSide(client, database)
    await client.putKeySet('survivor', side.keys as Uint8Array)
    first.process.kill('SIGTERM')
    expect(await first.exited).toBe(0)

    const second = await spawnServer(env)
    try {
      const again = new SealboxClient({ baseUrl: second.url, token: session.token })
      expect((await again.listKeySets()).keySets.map((k) => k.id)).toEqual(['survivor'])
      const q = side.query(3)
      const result = await again.search(q.bytes, { keySet: 'survivor' })
      expect(Array.from(side.search.decryptScores(result.responses).scores)).toEqual(Array.from(q.expected))
    } finally {
      second.process.kill('SIGTERM')
      expect(await second.exited).toBe(0)
    }
  })

  it('graceful shutdown: stops accepting, finishes the request in flight, exits 0', async () => {
    const server = await spawnServer({ ...SMALL, DATA_DIR: dataDir, FAULT_INJECTION: 'true' })
    const { session } = await new SealboxClient({ baseUrl: server.url }).createSession()
    const inFlight = raw(`${server.url}/api/v1/_faults/slow`, { method: 'POST', token: session.token })
    await sleep(400)
    server.process.kill('SIGTERM')
    await sleep(100)
    const late = await errorOf(new SealboxClient({ baseUrl: server.url }).health())
    expect(['INTERNAL', 'OVERLOADED']).toContain(late.code)
    const finished = await inFlight
    expect(finished.status).toBe(200)
    expect(await server.exited).toBe(0)
    expect(server.output()).toMatch(/shutting down: finishing in-flight work/)
    expect(server.output()).toMatch(/"msg":"stopped"/)
  })

  it('production mode: configured tokens only, no anonymous sessions', async () => {
    const token = 'acme-7Rq2xV9kLm3pZ8wT4nB6yH1cF5dJ0gS'
    const server = await spawnServer({ ...SMALL, DATA_DIR: dataDir, MODE: 'production', TOKENS: `acme:${token}` })
    try {
      const anonymous = await errorOf(new SealboxClient({ baseUrl: server.url }).createSession())
      expect(anonymous.code).toBe('FORBIDDEN')
      const acme = new SealboxClient({ baseUrl: server.url, token })
      expect((await acme.listKeySets()).tenant).toBe('acme')
      expect((await errorOf(acme.with({ token: `${token}x` }).listKeySets())).code).toBe('UNAUTHORIZED')
    } finally {
      server.process.kill('SIGINT')
      expect(await server.exited).toBe(0)
    }
  })

  it('a bad setting stops the server with a message that names it', async () => {
    const main = fileURLToPath(new URL('../src/main.ts', import.meta.url))
    const child = spawn(process.execPath, ['--conditions=@sealbox/source', main, '--workers', 'many'], {
      env: { ...inheritedEnv(), PORT: '99999' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
    expect(code).toBe(1)
    expect(stderr).toMatch(/PORT \/ --port/)
    expect(stderr).toMatch(/WORKERS \/ --workers/)
  })
})

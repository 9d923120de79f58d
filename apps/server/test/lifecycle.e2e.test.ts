import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { SealboxClient } from '@sealbox/he-core/client'
import { ServerNode, waitFor } from '@sealbox/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorOf, holdWorker, searchSide } from './harness.ts'

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
    const first = await ServerNode.start({ name: 'lifecycle', env: SMALL, dataDir })
    const { session, client } = await new SealboxClient({ baseUrl: first.url }).createSession()
    using side = await searchSide(client, database)
    await client.putKeySet('survivor', side.keys as Uint8Array)
    expect(await first.stop()).toBe(0)

    const second = await ServerNode.start({ name: 'lifecycle', env: SMALL, dataDir })
    try {
      const again = new SealboxClient({ baseUrl: second.url, token: session.token })
      expect((await again.listKeySets()).keySets.map((k) => k.id)).toEqual(['survivor'])
      const q = side.query(3)
      const result = await again.search(q.bytes, { keySet: 'survivor' })
      expect(Array.from(side.search.decryptScores(result.responses).scores)).toEqual(Array.from(q.expected))
    } finally {
      expect(await second.stop()).toBe(0)
    }
  })

  it('graceful shutdown: stops accepting, finishes the request in flight, exits 0', async () => {
    const server = await ServerNode.start({
      name: 'lifecycle',
      env: { ...SMALL, FAULT_INJECTION: 'true', LOG_LEVEL: 'info' },
      dataDir,
    })
    try {
      const { session } = await new SealboxClient({ baseUrl: server.url }).createSession()
      // A job held on the worker (a barrier): in flight for as long as this test says.
      const held = await holdWorker(server.url, session.token)
      let settled = false
      void held.done.finally(() => {
        settled = true
      })
      server.signal('SIGTERM')
      await waitFor('the server to stop accepting requests', async () => {
        try {
          await new SealboxClient({ baseUrl: server.url }).health()
          return false
        } catch {
          return true
        }
      })
      const late = await errorOf(new SealboxClient({ baseUrl: server.url }).health())
      expect(['INTERNAL', 'OVERLOADED']).toContain(late.code)
      // Still in flight while the server refuses new work; released through its gate file,
      // since the server no longer takes the request that would open it.
      expect(settled).toBe(false)
      await writeFile(join(dataDir, 'fault-gates', held.gate), '')
      expect((await held.done).status).toBe(200)
      expect(await server.exited()).toBe(0)
      expect(server.output()).toMatch(/shutting down: finishing in-flight work/)
      expect(server.output()).toMatch(/"msg":"stopped"/)
    } finally {
      await server.stop()
    }
  })

  it('production mode: configured tokens only, no anonymous sessions', async () => {
    const token = 'acme-7Rq2xV9kLm3pZ8wT4nB6yH1cF5dJ0gS'
    const server = await ServerNode.start({
      name: 'lifecycle',
      env: { ...SMALL, MODE: 'production', TOKENS: `acme:${token}` },
      dataDir,
    })
    try {
      const anonymous = await errorOf(new SealboxClient({ baseUrl: server.url }).createSession())
      expect(anonymous.code).toBe('FORBIDDEN')
      const acme = new SealboxClient({ baseUrl: server.url, token })
      expect((await acme.listKeySets()).tenant).toBe('acme')
      expect((await errorOf(acme.with({ token: `${token}x` }).listKeySets())).code).toBe('UNAUTHORIZED')
    } finally {
      expect(await server.stop(30_000, 'SIGINT')).toBe(0)
    }
  })

  it('a bad setting stops the server with a message that names it', async () => {
    const { code, stderr } = await ServerNode.run(['--workers', 'many'], { PORT: '99999' })
    expect(code).toBe(1)
    expect(stderr).toMatch(/PORT \/ --port/)
    expect(stderr).toMatch(/WORKERS \/ --workers/)
  })

  it('ends with the process that started it, even one killed with SIGKILL (no orphaned server)', async () => {
    // A parent like a test runner: starts a node through ServerNode, says which, then is killed.
    // The child resolves nothing from here: hand it testkit's entry as a file URL.
    const serverNode = pathToFileURL(createRequire(import.meta.url).resolve('@sealbox/testkit')).href
    const script = `
      const { ServerNode } = await import(${JSON.stringify(serverNode)})
      const node = await ServerNode.start({ name: 'orphan', env: ${JSON.stringify({ ...SMALL, SYNTHETIC_ROWS: '50' })} })
      process.stdout.write(JSON.stringify({ pid: node.pid, url: node.url }) + '\\n')
      setInterval(() => {}, 1 << 30)
    `
    const parent = spawn(process.execPath, ['--conditions=@sealbox/source', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const started = await new Promise<{ pid: number; url: string }>((resolve, reject) => {
      let out = ''
      parent.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        const line = out.split('\n').find((text) => text.startsWith('{'))
        if (line) resolve(JSON.parse(line))
      })
      parent.once('exit', (code) => reject(new Error(`the parent exited (${code}) before its server was ready`)))
    })
    expect((await fetch(`${started.url}/healthz`)).status).toBe(200)
    parent.kill('SIGKILL')
    await waitFor('the orphaned server to exit', () => !isAlive(started.pid))
  })
})

/** Whether process `pid` still exists (signal 0 checks without sending anything). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

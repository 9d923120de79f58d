import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DIST_DIR } from './buildApp.ts'
import { freePort } from './freePort.ts'

/** A running server and how to stop it. */
export interface RunningServer {
  url: string
  close: () => Promise<void>
}

const SERVER_MAIN = fileURLToPath(new URL('../../../server/src/main.ts', import.meta.url))

async function waitUntilReady(url: string, server: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 90_000
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`the sealbox server exited (${server.exitCode}):\n${output()}`)
    try {
      const response = await fetch(`${url}/readyz`)
      if (response.ok) return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error(`the sealbox server was not ready within 90 s:\n${output()}`)
}

/**
 * Starts the real sealbox server (apps/server, as `npm start` runs it) on a free
 * port, serving the freshly built sandbox at `/`, and waits until its workers are
 * warm and the synthetic search database is processed. Executor overrides are on
 * so the sandbox can compare pool and inline.
 */
export async function startSandboxServer(): Promise<RunningServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sealbox-web-e2e-'))
  const port = await freePort()
  const server = spawn(process.execPath, ['--conditions=@sealbox/source', SERVER_MAIN], {
    env: {
      ...process.env,
      // Vitest sets MODE=test for itself; the server reads MODE too.
      MODE: 'local',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      WEB_DIST: DIST_DIR,
      WORKERS: '1',
      LOG_LEVEL: 'warn',
      ALLOW_EXECUTOR_OVERRIDE: 'true',
      // A smaller demo database keeps the warm-up short; the search itself is the same.
      SYNTHETIC_ROWS: '2000',
      SYNTHETIC_DIM: '16',
      SYNTHETIC_SEED: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000)
  }
  server.stdout?.on('data', collect)
  server.stderr?.on('data', collect)
  const url = `http://127.0.0.1:${port}`
  const stop = async () => {
    if (server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve))
      server.kill('SIGTERM')
      const timer = setTimeout(() => server.kill('SIGKILL'), 15_000)
      await exited
      clearTimeout(timer)
    }
    await rm(dataDir, { recursive: true, force: true })
  }
  try {
    await waitUntilReady(url, server, () => output)
  } catch (error) {
    await stop()
    throw error
  }
  return { url, close: stop }
}

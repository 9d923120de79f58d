import { mkdtemp, readdir, rm, symlink, unlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  encodeBatch,
  encryptSymmetric,
  getHeContext,
  HeError,
  KeySet,
  SealboxClient,
  saveSealObject,
  withScope,
} from '@sealbox/he-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { raw, type SearchSide, type SpawnedServer, searchSide, spawnServer } from '../harness.ts'
import { duringAttack, HEALTHZ_P99_LIMIT_MS, type HealthStats, idleHealth, recordAbuse } from './abuseHarness.ts'

/*
 * Issue 2.8: internal errors reach the log, not the client. Before the fix a broken
 * key blob answered 500 with the blob's absolute path, SEAL's C++ text reached clients,
 * and neither was logged at error level.
 */

const FILE = 'internalErrors.e2e.test.ts'
const database = { rows: 300, dim: 6, seed: 7 }

/** The pino lines of a server's output (the plain "sealbox: …" lines are skipped). */
function logLines(output: string): Array<Record<string, unknown>> {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
}

/**
 * The log lines `match` picks, once there is at least one: the server writes its log
 * asynchronously, through a pipe, so the line may come a moment after the answer.
 */
async function logged(
  server: SpawnedServer,
  match: (line: Record<string, unknown>) => boolean,
): Promise<Array<Record<string, unknown>>> {
  const deadline = performance.now() + 10_000
  for (;;) {
    const lines = logLines(server.output()).filter(match)
    if (lines.length > 0 || performance.now() > deadline) return lines
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/**
 * x − y where y is x under another name: every check of ours passes (the analysis sees
 * two inputs), and SEAL refuses to produce the transparent result.
 */
const transparentProgram = {
  version: 1,
  inputs: [
    { name: 'x', kind: 'ciphertext' },
    { name: 'y', kind: 'ciphertext' },
  ],
  steps: [{ op: 'sub', a: 'x', b: 'y', out: 'r' }],
  outputs: ['r'],
}
const evaluateParams = { scheme: 'bfv', polyModulusDegree: 4096, plainModulus: { batchingBits: 20 } } as const

describe('internal errors (2.8)', () => {
  let server: SpawnedServer
  let dataDir: string
  let side: SearchSide
  let client: SealboxClient
  let token: string
  let tenant: string
  let idle: HealthStats

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sealbox-abuse-internal-'))
    server = await spawnServer({
      WORKERS: '1',
      SYNTHETIC_ROWS: String(database.rows),
      SYNTHETIC_DIM: String(database.dim),
      SYNTHETIC_SEED: String(database.seed),
      SEARCH_BABY_STEPS: 'server',
      SEARCH_BABY_STEP: '2',
      DATA_DIR: dataDir,
      // info: the refusals of client input are logged at info, internal errors at error.
      LOG_LEVEL: 'info',
    })
    const anonymous = new SealboxClient({ baseUrl: server.url })
    side = await searchSide(anonymous, database)
    const session = await anonymous.createSession()
    client = session.client
    token = session.session.token
    tenant = session.session.tenant
    idle = await idleHealth(server.url)
  }, 120_000)

  afterAll(async () => {
    side?.[Symbol.dispose]()
    server?.process.kill('SIGTERM')
    await server?.exited
    await rm(dataDir, { recursive: true, force: true })
  })

  it('answers a broken key blob with a request id and no path; the log has the details at error level', async () => {
    await client.putKeySet('broken', side.keys as Uint8Array)
    const blobs = join(dataDir, 'keysets', tenant, 'blobs')
    const [name] = (await readdir(blobs)).filter((file) => file.endsWith('.sbx'))
    // The blob becomes a symbolic link to itself: opening it fails with ELOOP and its path.
    const blob = join(blobs, name as string)
    await unlink(blob)
    await symlink(blob, blob)

    const { result: answer, health } = await duringAttack(server.url, () =>
      raw(`${server.url}/api/v1/search?keySet=broken`, {
        method: 'POST',
        token,
        headers: { 'content-type': 'application/octet-stream' },
        body: side.query(1).bytes,
      }),
    )
    const error = answer.json.error as { code: string; message: string; details?: { requestId?: string } }
    expect(answer.status).toBeGreaterThanOrEqual(500)
    // INTERNAL unless the store names the failure itself (an unavailable store is 503).
    expect(['INTERNAL', 'STORE_UNAVAILABLE', 'TENANT_UNAVAILABLE']).toContain(error.code)
    const requestId = answer.headers.get('x-request-id')
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/)
    expect(error.details?.requestId).toBe(requestId)
    const body = JSON.stringify(answer.json)
    expect(body).not.toContain(dataDir)
    expect(body).not.toContain('.sbx')

    // The log: an error-level line under that request id, with what went wrong and where.
    const lines = await logged(server, (line) => line.reqId === requestId && line.level === 50)
    expect(lines.length).toBeGreaterThan(0)
    expect(JSON.stringify(lines)).toContain('ELOOP')
    expect(JSON.stringify(lines)).toContain(blob)
    expect(health.failures).toBe(0)
    expect(health.p99).toBeLessThan(HEALTHZ_P99_LIMIT_MS)
    recordAbuse({
      item: '2.8',
      test: `${FILE} › broken key blob (symlink loop)`,
      answer: `${answer.status} ${error.code} + requestId, no path`,
      during: health,
      idle,
    })
  })

  it('answers what SEAL refuses with a 4xx in our words; SEAL’s own text is logged, not sent', async () => {
    const ctx = await getHeContext(evaluateParams)
    using keys = KeySet.generate(ctx, {})
    const x = withScope((scope) =>
      saveSealObject(encryptSymmetric(keys, encodeBatch(ctx, [1, 2, 3], scope), scope), {
        kind: 'ciphertext',
        fingerprint: ctx.fingerprint,
        keySetId: keys.id,
        compression: 'zstd',
      }),
    )
    let refused: unknown
    try {
      await client.evaluate({ params: evaluateParams, program: transparentProgram, inputs: { x, y: x } })
    } catch (error) {
      refused = error
    }
    expect(refused).toBeInstanceOf(HeError)
    const error = refused as HeError
    expect([error.code, error.details?.status]).toEqual(['SEAL_ERROR', 422])
    expect(error.message).toMatch(/step 1 \(sub\): SEAL refused: the result would be transparent/)
    // Not SEAL's words ("result ciphertext is transparent"), not its C++ exception type.
    expect(error.message).not.toMatch(/std::|result ciphertext/)
    // The log has them, at info (a refusal of client input, not a fault), under the request id.
    const lines = await logged(
      server,
      (line) => line.level === 30 && JSON.stringify(line).includes('result ciphertext is transparent'),
    )
    expect(lines.length).toBe(1)
    expect(lines[0]?.reqId).toMatch(/^[0-9a-f-]{36}$/)
  })
})

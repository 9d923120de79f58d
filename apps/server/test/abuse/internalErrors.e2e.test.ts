import { readdir, readFile, symlink, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { getHeContext, HeError, KeySet } from '@sealbox/he-core'
import type { SealboxClient } from '@sealbox/he-core/client'
import { waitFor } from '@sealbox/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SearchSide } from '../harness.ts'
import { duringAttack, expectHealthy, type HealthStats, idleHealth, searchRaw } from './abuseHarness.ts'
import { encryptedInput, SMALL_BFV_PARAMS, transparentProgram } from './abusePrograms.ts'
import { type AbuseServer, spawnAbuseServer } from './abuseServer.ts'

/*
 * Internal errors: internal errors reach the log, not the client. Before the fix a broken
 * key blob answered 500 with the blob's absolute path, SEAL's C++ text reached clients,
 * and neither was logged at error level.
 */

const FILE = 'internalErrors.e2e.test.ts'

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
 * After the deadline it returns none, and the caller's assertion says what is missing.
 */
async function logged(
  server: AbuseServer,
  match: (line: Record<string, unknown>) => boolean,
): Promise<Array<Record<string, unknown>>> {
  await waitFor('the log line', () => logLines(server.output()).some(match), 10_000).catch(() => undefined)
  return logLines(server.output()).filter(match)
}

describe('internal errors', () => {
  let server: AbuseServer
  let side: SearchSide
  let client: SealboxClient
  let token: string
  let tenant: string
  let idle: HealthStats

  beforeAll(async () => {
    // info: the refusals of client input are logged at info, internal errors at error.
    // No node bytes cache: an upload would leave the search's key form there, and these
    // tests damage what a search then reads from the store.
    server = await spawnAbuseServer({ LOG_LEVEL: 'info', KEY_BYTES_CACHE_BYTES: '0' }, { name: 'internal' })
    side = await server.searchSide()
    const session = await server.client.createSession()
    client = session.client
    token = session.session.token
    tenant = session.session.tenant
    idle = await idleHealth(server.url)
  }, 120_000)

  afterAll(() => server?.stop())

  it('answers a broken key blob with a request id and no path; the log has the details at error level', async () => {
    await client.putKeySet('broken', side.keys as Uint8Array)
    const blobs = join(server.dataDir, 'keysets', tenant, 'blobs')
    const [name] = (await readdir(blobs)).filter((file) => file.endsWith('.sbx'))
    // The blob becomes a symbolic link to itself: opening it fails with ELOOP and its path.
    const blob = join(blobs, name as string)
    await unlink(blob)
    await symlink(blob, blob)

    const { result: answer, health } = await duringAttack(server.url, () =>
      searchRaw(server.url, token, 'broken', side.query(1).bytes),
    )
    const error = answer.json.error as { code: string; message: string; details?: { requestId?: string } }
    expect(answer.status).toBeGreaterThanOrEqual(500)
    // INTERNAL unless the store names the failure itself (an unavailable store is 503).
    expect(['INTERNAL', 'STORE_UNAVAILABLE', 'TENANT_UNAVAILABLE']).toContain(error.code)
    const requestId = answer.headers.get('x-request-id')
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/)
    expect(error.details?.requestId).toBe(requestId)
    const body = JSON.stringify(answer.json)
    expect(body).not.toContain(server.dataDir)
    expect(body).not.toContain('.sbx')

    // The log: an error-level line under that request id, with what went wrong and where.
    const lines = await logged(server, (line) => line.reqId === requestId && line.level === 50)
    expect(lines.length).toBeGreaterThan(0)
    expect(JSON.stringify(lines)).toContain('ELOOP')
    expect(JSON.stringify(lines)).toContain(blob)
    expectHealthy({
      attack: 'internal errors',
      test: `${FILE} › broken key blob (symlink loop)`,
      answer: `${answer.status} ${error.code} + requestId, no path`,
      during: health,
      idle,
    })
  })

  it('answers a stored key set whose bytes were damaged on disk INTERNAL with a request id, never a client error', async () => {
    await client.putKeySet('damaged', side.keys as Uint8Array)
    const keySet = await client.getKeySet('damaged')
    const blob = join(server.dataDir, 'keysets', tenant, 'blobs', `${keySet.sha256}.sbx`)
    // Bit rot: the file is still there and readable, its bytes are not what was stored.
    const bytes = await readFile(blob)
    for (let i = 200; i < bytes.length; i += 1000) bytes[i] = (bytes[i] as number) ^ 0x5a
    await writeFile(blob, bytes)

    const { result: answer, health } = await duringAttack(server.url, () =>
      searchRaw(server.url, token, 'damaged', side.query(2).bytes),
    )
    const error = answer.json.error as { code: string; message: string; details?: { requestId?: string } }
    // Before: 400 ENVELOPE_INTEGRITY "re-export the object" — the server's damage blamed on the client.
    expect([answer.status, error.code]).toEqual([500, 'INTERNAL'])
    const requestId = answer.headers.get('x-request-id')
    expect(error.details?.requestId).toBe(requestId)
    expect(error.message).toContain(requestId as string)
    const body = JSON.stringify(answer.json)
    expect(body).not.toContain(server.dataDir)
    expect(body).not.toContain(keySet.sha256)
    const lines = await logged(server, (line) => line.reqId === requestId && line.level === 50)
    expect(lines.length).toBeGreaterThan(0)
    expect(JSON.stringify(lines)).toContain('stored key set \\"damaged\\"')
    expectHealthy({
      attack: 'internal errors',
      test: `${FILE} › stored key set damaged on disk (bit rot)`,
      answer: `${answer.status} ${error.code} + requestId; details in the error log`,
      during: health,
      idle,
    })
  })

  it('answers what SEAL refuses with a 4xx in our words; SEAL’s own text is logged, not sent', async () => {
    const ctx = await getHeContext(SMALL_BFV_PARAMS)
    using keys = KeySet.generate(ctx, {})
    const x = encryptedInput(ctx, keys)
    let refused: unknown
    try {
      await client.evaluate({ params: SMALL_BFV_PARAMS, program: transparentProgram, inputs: { x, y: x } })
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

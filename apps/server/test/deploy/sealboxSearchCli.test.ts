import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { SealboxClient } from '@sealbox/he-core/client'
import {
  demoSearchDatabase,
  embedText,
  plaintextSearchScores,
  topKIndices,
  verifySearchConfig,
} from '@sealbox/he-core/search'
import { ServerNode } from '@sealbox/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/*
 * he-core's `sealbox-search` command (issue 30, major 1) against a real production node
 * serving the demo database: it uploads its keys with a bearer token, searches, and prints
 * the hits named by the catalog, in the order of the plaintext oracle (the same cosine
 * scores in plain integers). A wrong token and a bad command line fail with their codes.
 */

const run = promisify(execFile)
const MAIN = fileURLToPath(new URL('../../../../packages/he-core/src/node/sealboxSearchMain.ts', import.meta.url))
const TOKEN = 'ops-token-0123456789abcdefghijKLMNOPQRstu'

/** `sealbox-search args…` from source; resolves with its exit code and output, whatever the code. */
function sealboxSearch(args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  return run(process.execPath, ['--conditions=@sealbox/source', MAIN, ...args], {
    env: { ...process.env, ...env },
    timeout: 120_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: error.code ?? -1,
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    }),
  )
}

let node: ServerNode

beforeAll(async () => {
  node = await ServerNode.start({
    name: 'cli',
    env: { MODE: 'production', WORKERS: '1', DATABASE: 'demo', TOKENS: `ops:${TOKEN}`, SEARCH_BABY_STEPS: 'server' },
  })
}, 120_000)

afterAll(async () => {
  await node?.stop()
})

describe('sealbox-search', () => {
  it('uploads keys with a token, searches, and prints named hits in the oracle’s order', async () => {
    const result = await sealboxSearch(['--url', node.url, '--text', 'noble gas', '--top', '5'], {
      SEALBOX_TOKEN: TOKEN,
    })
    expect(result.stderr).toMatch(/^sealbox-search: 118 rows × 256, keys \d+ bytes/)
    expect(result.code).toBe(0)
    const lines = result.stdout.trim().split('\n')
    const config = verifySearchConfig(await new SealboxClient({ baseUrl: node.url, token: TOKEN }).searchConfig())
    const database = demoSearchDatabase(config.dimension)
    const oracle = topKIndices(plaintextSearchScores(config, database, embedText('noble gas', config.dimension)), 5)
    expect(lines.map((line) => line.split('\t')[1])).toEqual(oracle.map((row) => database.ids[row]))
    expect(lines[0]).toMatch(/^1\t\w+\t0\.\d{4} {2}\{"name":"\w+"/)
    // The keys are stored under the command's key set, for the token's tenant.
    const keySets = await new SealboxClient({ baseUrl: node.url, token: TOKEN }).listKeySets()
    expect(keySets.keySets.map((keySet) => keySet.id)).toContain('sealbox-search')
  })

  it('fails with the server’s code for a wrong token, and with usage for a bad command line', async () => {
    const wrong = await sealboxSearch(['--url', node.url, '--token', `${TOKEN}x`, '--text', 'iron'])
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toMatch(/^sealbox-search: UNAUTHORIZED: /)
    const neither = await sealboxSearch(['--url', node.url, '--token', TOKEN])
    expect(neither.code).toBe(2)
    expect(neither.stderr).toContain('give exactly one of --text and --vector')
    const badUrl = await sealboxSearch(['--url', 'ftp://x', '--text', 'iron'])
    expect(badUrl.code).toBe(2)
    const shortVector = await sealboxSearch(['--url', node.url, '--token', TOKEN, '--vector', '1,2,3'])
    expect(shortVector.code).toBe(1)
    expect(shortVector.stderr).toContain("the server's database has dimension 256")
  })
})

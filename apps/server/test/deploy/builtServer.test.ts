import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { getHeContext } from '@sealbox/he-core'
import { SealboxClient } from '@sealbox/he-core/client'
import {
  PrivateSearchClient,
  plaintextSearchScores,
  syntheticSearchDatabase,
  syntheticSearchQuery,
  verifySearchConfig,
} from '@sealbox/he-core/search'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BUILT_MAIN, ServerNode } from '../../src/testing/ServerNode.ts'

/*
 * `npm run build` makes a server that plain Node runs, without `--conditions` and
 * without type stripping: he-core and the server compiled by their build scripts, then
 * `node apps/server/dist/main.js` started, its pool workers included, and searched.
 */

const run = promisify(execFile)
const require = createRequire(import.meta.url)
const TSC = require.resolve('typescript/bin/tsc')
const HE_CORE = fileURLToPath(new URL('../../../../packages/he-core/', import.meta.url))
const SERVER = fileURLToPath(new URL('../../', import.meta.url))
const TOKEN = 'built-server-token-0123456789abcdefXYZ'

let node: ServerNode

beforeAll(async () => {
  // The packages' `build` scripts (tsc -p tsconfig.build.json), as `npm run build` runs them.
  await run(process.execPath, [TSC, '-p', 'tsconfig.build.json'], { cwd: HE_CORE })
  await run(process.execPath, [TSC, '-p', 'tsconfig.build.json'], { cwd: SERVER })
  node = await ServerNode.start({
    name: 'built',
    entry: 'built',
    env: {
      MODE: 'production',
      TOKENS: `alice:${TOKEN}`,
      WORKERS: '1',
      SYNTHETIC_ROWS: '600',
      SEARCH_BABY_STEPS: 'server',
    },
  })
}, 240_000)

afterAll(async () => {
  await node?.stop()
})

describe('the built server', () => {
  it('is JavaScript that plain Node runs: --help, then a keyed search on a pool worker equals the oracle', async () => {
    expect(existsSync(BUILT_MAIN)).toBe(true)
    const help = await run(process.execPath, [BUILT_MAIN, '--help'])
    expect(help.stdout).toContain('usage: node apps/server/dist/main.js')
    expect(help.stdout).toContain('422 LIMIT_EXCEEDED')
    expect(help.stdout).toContain('--tokens-file <value>')

    const client = new SealboxClient({ baseUrl: node.url, token: TOKEN })
    const config = verifySearchConfig(await client.searchConfig())
    const ctx = await getHeContext(config.params)
    using search = PrivateSearchClient.create(ctx, config)
    await client.putKeySet('main', search.evaluationKeys() as Uint8Array)
    const vector = syntheticSearchQuery(config.dimension, 5)
    const { responses } = await client.search(search.encryptQuery(vector), { keySet: 'main' })
    const database = syntheticSearchDatabase({ rows: 600, dimension: config.dimension, seed: 1 })
    expect([...search.decryptScores(responses).scores]).toEqual([...plaintextSearchScores(config, database, vector)])
    // Nothing in the node's output mentions type stripping or the source condition.
    expect(await node.log()).not.toMatch(/ExperimentalWarning|\.ts\b/)
  })
})

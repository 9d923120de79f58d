import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { SealboxClient } from '@sealbox/he-core/client'
import { ServerNode } from '@sealbox/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/*
 * `DATABASE=my.jsonl npm start` serves my.jsonl (issue 30, minor 10): npm start's demo
 * database is a default the script adds only when neither DATABASE nor --database is
 * given, and both the script and the server say which database runs. The script's choice
 * is read from scripts/sealbox.mjs itself (the function `npm start` calls), then the
 * server is started with exactly the arguments it chose and the user's environment.
 */

const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))

/** What scripts/sealbox.mjs adds to `npm start`'s arguments, and the line it prints, for `args` and `env`. */
async function startChoice(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ added: string[]; said: string }> {
  const program = `import { startDatabaseArgs } from './scripts/sealbox.mjs'
process.stdout.write(JSON.stringify(startDatabaseArgs(${JSON.stringify(args)}, process.env)))`
  const { DATABASE: _ours, ...rest } = process.env
  const { stdout, stderr } = await run(process.execPath, ['--input-type=module', '-e', program], {
    cwd: ROOT,
    env: { ...rest, ...env },
  })
  return { added: JSON.parse(stdout) as string[], said: stderr.trim() }
}

let dir: string
let file: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sealbox-start-db-'))
  file = join(dir, 'mine.jsonl')
  const rows = Array.from({ length: 5 }, (_, i) => ({
    id: `row-${i}`,
    vector: Array.from({ length: 4 }, (_, j) => (i === j ? 1 : 0.1)),
  }))
  await writeFile(file, `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`)
})

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe('npm start and the DATABASE setting', () => {
  it('no longer passes --database=demo in the script itself', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    expect(pkg.scripts['sealbox:start']).not.toContain('--database')
  })

  it('adds the demo default only when neither DATABASE nor --database is given, and says which runs', async () => {
    expect(await startChoice([], {})).toEqual({
      added: ['--database=demo'],
      said: expect.stringMatching(/^\[sealbox\] database: demo \(npm start’s default; DATABASE=/),
    })
    expect(await startChoice([], { DATABASE: file })).toEqual({
      added: [],
      said: `[sealbox] database: ${file} (from DATABASE)`,
    })
    expect(await startChoice(['--database', 'synthetic'], { DATABASE: file })).toEqual({
      added: [],
      said: '[sealbox] database: synthetic (from --database)',
    })
    expect((await startChoice([`--database=${file}`], {})).added).toEqual([])
  })

  it('serves the DATABASE file when started with the arguments the script chose, and logs it', async () => {
    const { added } = await startChoice([], { DATABASE: file })
    const node = await ServerNode.start({ name: 'start-db', env: { DATABASE: file }, args: added })
    try {
      const { client } = await new SealboxClient({ baseUrl: node.url }).createSession()
      const config = await client.searchConfig()
      expect(config.database.source).toEqual({ type: 'file', name: 'mine.jsonl', format: 'jsonl' })
      expect(config.rows).toBe(5)
      expect(await node.log()).toContain(`database ${file}`)
    } finally {
      await node.stop()
    }
  })
})

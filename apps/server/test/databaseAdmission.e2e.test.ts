import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, open, rm, truncate, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { encodeNpyFloat32 } from '@sealbox/he-core/search'
import { ServerNode, serverEnv } from '@sealbox/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/*
 * A database the settings cannot serve is refused from its shape, before any process
 * loads it. The large files are sparse: a real .npy header, then truncate() to the full
 * size, so the disk holds a few bytes while a load would read every one of them.
 */

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url))
const TIME = '/usr/bin/time'
const MiB = 2 ** 20

let dir: string

/** A .npy file of shape (rows, dim): a real header (NEP 1: data on a 64-byte boundary), values all zero and taking no disk space. */
async function sparseNpy(name: string, rows: number, dim: number): Promise<string> {
  const path = join(dir, name)
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${rows}, ${dim}), }`
  header += `${' '.repeat((64 - ((10 + header.length + 1) % 64)) % 64)}\n`
  const bytes = new Uint8Array(10 + header.length)
  bytes.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0])
  new DataView(bytes.buffer).setUint16(8, header.length, true)
  for (let i = 0; i < header.length; i++) bytes[10 + i] = header.charCodeAt(i)
  await writeFile(path, bytes)
  await truncate(path, bytes.byteLength + rows * dim * 4)
  return path
}

interface MeasuredRun {
  code: number | null
  output: string
  /** Peak resident set of the server process (GNU time's %M), bytes. */
  maxRssBytes: number
}

/** `node src/main.ts` to its end under GNU time: exit code, output and peak RSS. */
function runMeasured(env: Record<string, string>): Promise<MeasuredRun> {
  const child = spawn(TIME, ['-f', 'maxrss_kb=%M', process.execPath, '--conditions=@sealbox/source', MAIN], {
    env: serverEnv({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: join(dir, 'data'), ...env }),
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  // A bound on a run that never ends by itself (it would have got past the check), not an ordering.
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000)
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer)
      const kb = Number(/maxrss_kb=(\d+)/.exec(output)?.[1] ?? Number.NaN)
      resolve({ code, output, maxRssBytes: kb * 1024 })
    }),
  )
}

function run(env: Record<string, string>) {
  return ServerNode.run([], { DATA_DIR: join(dir, 'data'), ...env })
}

describe('a database is refused from its shape, before anything loads it', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sealbox-admission-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it.runIf(existsSync(TIME))(
    'V = 1,100,000 × D = 384 (1.7 GB of float32): refused from the header with the numbers, no worker started, RSS far below the file',
    async () => {
      const path = await sparseNpy('million.npy', 1_100_000, 384)
      const result = await runMeasured({ DATABASE: path, WORKERS: '2' })
      expect(result.code, result.output).toBe(1)
      expect(result.output).toContain(
        "sealbox: DATABASE million.npy (V=1100000 rows × D=384, from its header) is refused: rows: V=1100000 × D'=512 needs 4.2 GiB of u32 residues in the key-switching kernel's diagonal memory (one copy per node, shared by its worker threads; one per process under EXECUTOR=process); the limit is 3.9 GiB of its 4 GiB",
      )
      expect(result.output).toContain('Serve fewer rows')
      expect(result.output).not.toMatch(/worker warm|processing the database/)
      // Loading would hold the file (1.5 GB) before anything else; the whole refusing process stays near an idle node's size.
      expect(result.maxRssBytes).toBeGreaterThan(0)
      expect(result.maxRssBytes).toBeLessThan(512 * MiB)
    },
  )

  it('V = 1,000,000 × D = 384 (between the old 2 GiB of SEAL plaintexts and the diagonal memory): accepted from its header', async () => {
    const path = await sparseNpy('accepted.npy', 1_000_000, 384)
    const result = await run({ DATABASE: path, WORKERS: '1', SEARCH_CACHE: 'false' })
    // Accepted: the worker reads the rows — all zero here, which cosine refuses at row 0.
    expect(result.code, result.stderr).toBe(1)
    expect(result.stdout).toContain(
      "database accepted from its shape: V=1000000 × D=384, 3912 MiB processed, of u32 residues in the key-switching kernel's diagonal memory (one copy per node",
    )
    expect(result.stderr).toContain('row 0 is the zero vector')
  })

  it("V = 100,000 × D = 768 under BFV (SEAL's plaintexts in every heap): refused for WORKER_HEAP_RECYCLE_BYTES, and accepted once it is raised", async () => {
    const path = await sparseNpy('wide.npy', 100_000, 768)
    const refused = await run({ DATABASE: path, WORKERS: '1', SEARCH_CACHE: 'false', SEARCH_SCHEME: 'bfv' })
    expect(refused.code, refused.stderr).toBe(1)
    expect(refused.stderr).toContain('DATABASE wide.npy (V=100000 rows × D=768, from its header) is refused')
    expect(refused.stderr).toContain("1568 MiB of NTT-form plaintexts in each worker's SEAL heap (25 blocks")
    expect(refused.stderr).toContain(
      'above WORKER_HEAP_RECYCLE_BYTES (1024 MiB), so every worker would be replaced and the database processed again after every query. Raise WORKER_HEAP_RECYCLE_BYTES to at least 1632 MiB',
    )
    // Raised: the shape passes, and the worker reads the rows — all zero here, which cosine refuses at row 0.
    const accepted = await run({
      DATABASE: path,
      WORKERS: '1',
      SEARCH_CACHE: 'false',
      SEARCH_SCHEME: 'bfv',
      WORKER_HEAP_RECYCLE_BYTES: String(1700 * MiB),
      WORKER_HEAP_BYTES: String(3584 * MiB),
    })
    expect(accepted.code, accepted.stderr).toBe(1)
    expect(accepted.stdout).toContain(
      "database accepted from its shape: V=100000 × D=768, 1568 MiB processed, of NTT-form plaintexts in each worker's SEAL heap",
    )
    expect(accepted.stderr).toContain('workers failed to start')
    expect(accepted.stderr).toContain('row 0 is the zero vector')
  })

  it('a .npy file shorter than its header says is refused before a worker reads it', async () => {
    const path = join(dir, 'short.npy')
    const whole = encodeNpyFloat32(new Float32Array(1000 * 16).fill(0.25), 1000, 16)
    await writeFile(path, whole.subarray(0, whole.byteLength - 4))
    const result = await run({ DATABASE: path, WORKERS: '1' })
    expect(result.code, result.stderr).toBe(1)
    expect(result.stderr).toContain(
      `sealbox: DATABASE short.npy is refused: .npy: truncated: shape (1000, 16) needs ${whole.byteLength} bytes, the file has ${whole.byteLength - 4}`,
    )
  })

  it('a CSV file is counted in one streamed pass (a quoted newline stays inside its record)', async () => {
    const path = join(dir, 'rows.csv')
    const lines = ['id,a,b,c,metadata']
    for (let i = 0; i < 10; i++) lines.push(`r${i},0.${i + 1},0.5,-0.25,"{""note"": ""line one\nline two""}"`)
    await writeFile(path, `${lines.join('\r\n')}\r\n\r\n`)
    // The smallest recycle bound leaves no room for any database: the refusal shows what was counted.
    const result = await run({
      DATABASE: path,
      WORKERS: '1',
      WORKER_HEAP_RECYCLE_BYTES: String(64 * MiB),
      // Start-up refuses a key cache that the recycle bound could not hold beside a worker's heap.
      KEY_CACHE_BYTES: String(8 * MiB),
    })
    expect(result.code, result.stderr).toBe(1)
    expect(result.stderr).toContain('DATABASE rows.csv (V=10 rows × D=3, from its header) is refused')
  })

  it('a text database too large to parse in memory is refused by its size, with the format to use', async () => {
    const path = join(dir, 'huge.jsonl')
    const file = await open(path, 'w')
    await file.close()
    await truncate(path, 600 * MiB)
    const result = await run({ DATABASE: path, WORKERS: '1' })
    expect(result.code, result.stderr).toBe(1)
    expect(result.stderr).toContain(
      'DATABASE huge.jsonl is refused: 600 MiB of JSONL is above the 512 MiB a text database may have (it is parsed whole in memory); save the vectors as a float32 .npy file',
    )
  })
})

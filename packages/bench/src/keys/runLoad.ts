import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { BenchError } from '../BenchError.ts'
import type { LoadJob, LoadResult } from './loadJob.ts'

const GENERATOR = fileURLToPath(new URL('./loadGenerator.ts', import.meta.url))

/**
 * Runs one load job in a separate Node process and returns what it measured. The
 * process is killed if it overstays the job's own time bound by a minute.
 */
export async function runLoad(job: LoadJob): Promise<LoadResult> {
  const dir = await mkdtemp(join(tmpdir(), 'sealbox-keys-load-'))
  try {
    const jobFile = join(dir, 'job.json')
    const resultFile = join(dir, 'result.json')
    await writeFile(jobFile, JSON.stringify(job))
    const child = spawn(process.execPath, ['--conditions=@sealbox/source', GENERATOR, jobFile, resultFile], {
      stdio: ['ignore', 'inherit', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    // Warm-up and measured part are each bounded by maxSeconds.
    const limitMs = (2 * job.maxSeconds + 60) * 1000
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs)
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
    clearTimeout(timer)
    if (code !== 0)
      throw new BenchError('PROCESS_FAILED', `the load generator failed (exit ${code}): ${stderr.trim().slice(-2000)}`)
    return JSON.parse(await readFile(resultFile, 'utf8')) as LoadResult
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

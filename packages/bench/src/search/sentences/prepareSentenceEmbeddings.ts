import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'
import { BenchError } from '../../BenchError.ts'

const HERE = fileURLToPath(new URL('.', import.meta.url))
const REQUIREMENTS = join(HERE, 'requirements.txt')

/** What embedSentences.py prints: the corpus, the model, and where the rows and queries are. */
export const SentenceEmbeddingsSchema = z.object({
  corpus: z.object({
    requirement: z.string(),
    wheelSha256: z.string(),
    member: z.string(),
    sentences: z.number().int().positive(),
    sha256: z.string(),
    minWords: z.number().int(),
    maxWords: z.number().int(),
  }),
  model: z.object({
    requirement: z.string(),
    wheelSha256: z.string(),
    safetensorsSha256: z.string(),
    maxTokens: z.number().int(),
    selfCheck: z.object({
      paraphraseMin: z.number(),
      paraphraseMean: z.number(),
      unrelatedMax: z.number(),
      /** Largest |cosine − upstream's| over the sentence-transformers documentation's three reference pairs. */
      referenceMaxDeviation: z.number(),
    }),
  }),
  rows: z.number().int().positive(),
  queries: z.number().int().positive(),
  /** Seconds the embedding took in this run; null when it came from the cache. */
  embedSeconds: z.number().nullable(),
  databasePath: z.string(),
  queriesPath: z.string(),
  sentencesPath: z.string(),
})
export type SentenceEmbeddings = z.infer<typeof SentenceEmbeddingsSchema>

function run(command: string, args: readonly string[]): { ok: boolean; output: string } {
  const result = spawnSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  return { ok: result.status === 0, output: `${result.stdout ?? ''}${result.stderr ?? ''}`.trim() }
}

/**
 * The venv of the sentence bench (`cacheDir/venv`: numpy, safetensors, tokenizers from
 * requirements.txt), made on first use. Kept apart from packages/bench/.venv so the native
 * SEAL venv that CI builds never carries the embedding's dependencies.
 */
export function sentenceVenvPython(cacheDir: string, log: (line: string) => void): string {
  const venv = join(cacheDir, 'venv')
  const python = join(venv, 'bin', 'python')
  const probe = () => run(python, ['-c', 'import numpy, safetensors, tokenizers'])
  if (existsSync(python) && probe().ok) return python
  log(`sentences: creating ${venv} (${REQUIREMENTS}; first run only)`)
  const steps: [string, string[]][] = [
    ['python3', ['-m', 'venv', venv]],
    [python, ['-m', 'pip', 'install', '--quiet', '-r', REQUIREMENTS]],
  ]
  for (const [command, args] of steps) {
    const result = run(command, args)
    if (!result.ok)
      throw new BenchError(
        'ENGINE_UNAVAILABLE',
        `sentences: \`${command} ${args.join(' ')}\` failed: ${result.output.split('\n').at(-1)}; the sentence bench needs python3 (>= 3.10) with venv and pip, and PyPI`,
      )
  }
  const check = probe()
  if (!check.ok) throw new BenchError('ENGINE_UNAVAILABLE', `sentences: the venv does not import: ${check.output}`)
  return python
}

/**
 * Embeds the corpus (or reads the embeddings cached under `cacheDir`) and splits it into
 * database rows and `queries` held-out sentences, through embedSentences.py; its progress
 * goes to this process's stderr.
 */
export async function prepareSentenceEmbeddings(options: {
  cacheDir: string
  queries: number
  log: (line: string) => void
}): Promise<SentenceEmbeddings> {
  const python = sentenceVenvPython(options.cacheDir, options.log)
  const child = spawn(
    python,
    [join(HERE, 'embedSentences.py'), '--cache', options.cacheDir, '--queries', String(options.queries)],
    // One BLAS thread unless the caller sets OPENBLAS_NUM_THREADS: the embedding shares the machine with everything else on it.
    {
      cwd: HERE,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, OPENBLAS_NUM_THREADS: process.env.OPENBLAS_NUM_THREADS ?? '1' },
    },
  )
  let stdout = ''
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8')
  })
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', resolve)
  })
  if (code !== 0)
    throw new BenchError('PROCESS_FAILED', `sentences: embedSentences.py exited with ${code} (its stderr is above)`)
  const line = stdout.trim().split('\n').at(-1) ?? ''
  let parsed: unknown
  try {
    parsed = JSON.parse(line)
  } catch (cause) {
    throw new BenchError('PROCESS_FAILED', `sentences: embedSentences.py printed no JSON line: ${line.slice(0, 200)}`, {
      cause,
    })
  }
  const result = SentenceEmbeddingsSchema.safeParse(parsed)
  if (!result.success)
    throw new BenchError(
      'PROCESS_FAILED',
      `sentences: embedSentences.py's report does not parse: ${result.error.message}`,
    )
  return result.data
}

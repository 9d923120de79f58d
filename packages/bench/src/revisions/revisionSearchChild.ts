/**
 * The child of `benchmark:revisions`: times the default search config of one shape with
 * the he-core of another checkout (`job.root`, e.g. a worktree at an older commit). It
 * imports that checkout's sources by path, so the child runs exactly that revision's code
 * (its he-ring and node-seal resolve from that checkout's own node_modules). The parent
 * alternates these children between revisions; nothing here compares.
 */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { reportChildReady, serveChildTask } from '../core/ChildTask.ts'
import { threadCpuMs } from '../core/threadCpuMs.ts'
import { type RevisionSearchJob, RevisionSearchJobSchema, type RevisionSearchSample } from './revisionSearchJob.ts'

// The other checkout's module shapes are the ones this checkout's he-core exports; they are
// typed from ours (the API used here is unchanged since before the kernel work).
type SearchModule = typeof import('@sealbox/he-core/search')
type CoreModule = typeof import('@sealbox/he-core')

async function timeRevision(job: RevisionSearchJob): Promise<RevisionSearchSample> {
  const source = (file: string) => pathToFileURL(join(job.root, 'packages', 'he-core', 'src', file)).href
  const search = (await import(source('search/index.ts'))) as SearchModule
  const core = (await import(source('index.ts'))) as CoreModule
  const database = search.syntheticSearchDatabase({ rows: job.rows, dimension: job.dimension, seed: 1 })
  const config = search.resolveSearchConfig({ rows: job.rows, dimension: job.dimension })
  const ctx = await core.getHeContext(config.params)
  const client = search.PrivateSearchClient.create(ctx, config)
  const envelope = client.evaluationKeys()
  const keys = envelope ? core.EvaluationKeys.load(ctx, envelope) : null
  const index = search.PrivateSearchIndex.process(ctx, database, config)
  reportChildReady()
  try {
    const vectors = Array.from({ length: 4 }, (_, i) => search.syntheticSearchQuery(job.dimension, 100 + i))
    const queries = vectors.map((vector) => client.encryptQuery(vector))
    // Every query vector is checked against the plaintext oracle once, before timing.
    let exact = true
    for (const [i, query] of queries.entries()) {
      const scores = client.decryptScores(index.evaluate(query, keys).response)
      const oracle = search.plaintextSearchScores(config, database, vectors[i] as Float64Array)
      exact &&= scores.strayNonZeroSlots === 0 && oracle.every((score, row) => scores.scores[row] === score)
    }
    const totalMs: number[] = []
    const computeMs: number[] = []
    const cpuMs: number[] = []
    for (let i = 0; i < job.warmup + job.samples; i++) {
      const cpuStart = threadCpuMs()
      const { timings } = index.evaluate(queries[i % queries.length] as Uint8Array, keys)
      if (i < job.warmup) continue
      cpuMs.push(threadCpuMs() - cpuStart)
      totalMs.push(timings.totalMs)
      computeMs.push(timings.computeMs)
    }
    return {
      totalMs,
      computeMs,
      cpuMs,
      exact,
      config: { babyStep: config.babyStep, hoistBabySteps: config.hoistBabySteps, configId: config.configId },
    }
  } finally {
    index.dispose()
    keys?.dispose()
    client.dispose()
  }
}

serveChildTask((job) => timeRevision(RevisionSearchJobSchema.parse(job)))

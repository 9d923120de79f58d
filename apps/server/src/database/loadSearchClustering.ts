import { createHash, randomBytes } from 'node:crypto'
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  checkSearchClustering,
  clusterSearchDatabase,
  type SearchClustering,
  type SearchConfig,
  type SearchDatabase,
  type SearchRowSource,
} from '@sealbox/he-core/search'

/** How a warm-up got its clustering. */
export type SearchClusteringOutcome = 'read' | 'clustered' | 'reclustered'

/**
 * The clustering of a cluster-private config (read from `dir` when it holds a good one,
 * else computed and written there), kept beside the processed database under
 * DATA_DIR/search-cache as `<content hash>-<config id>.clusters.json`: balanced k-means over
 * a million rows takes minutes, so a restart reads it. A file that does not parse or does
 * not check (`checkSearchClustering`: its config, every row once, no cluster above m) is
 * clustered again and rewritten, never used; it is written under a temporary name and
 * renamed, so a crash leaves no half file. The processed database is keyed on the
 * clustering's hash (`clusteredContentHash`), so blocks encoded for another clustering are
 * never read.
 */
export function loadSearchClustering(
  dir: string | undefined,
  contentHash: string,
  config: SearchConfig,
  rows: SearchDatabase | SearchRowSource,
): { clustering: SearchClustering; outcome: SearchClusteringOutcome; file?: string } {
  const file = dir && join(dir, `${contentHash.slice(0, 32)}-${config.configId}.clusters.json`)
  let outcome: SearchClusteringOutcome = 'clustered'
  if (file) {
    let text: string | undefined
    try {
      text = readFileSync(file, 'utf8')
    } catch {
      text = undefined
    }
    if (text !== undefined) {
      try {
        return { clustering: checkSearchClustering(config, JSON.parse(text)), outcome: 'read', file }
      } catch {
        outcome = 'reclustered'
      }
    }
  }
  const clustering = clusterSearchDatabase(config, rows)
  if (file) {
    const temporary = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`
    try {
      writeFileSync(temporary, JSON.stringify(clustering))
      renameSync(temporary, file)
    } catch {
      // A read-only or full disk costs the next start a clustering, nothing else.
      rmSync(temporary, { force: true })
    }
  }
  return { clustering, outcome, ...(file ? { file } : {}) }
}

/** The processed cache's content key for a cluster-private database: the rows' hash and the clustering's. */
export function clusteredContentHash(contentHash: string, clustering: SearchClustering): string {
  return createHash('sha256').update(contentHash).update(JSON.stringify(clustering.members)).digest('hex')
}

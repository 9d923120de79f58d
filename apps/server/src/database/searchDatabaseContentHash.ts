import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import type { DatabaseSource } from '../executor/WorkerSetup.ts'

/**
 * Bumped whenever `syntheticSearchDatabase` would draw other vectors for the same seed:
 * a synthetic database is keyed by its description, not by vectors nobody stores.
 */
const SYNTHETIC_GENERATOR_VERSION = 1

/**
 * SHA-256 (hex) of what a database is: a file's bytes (streamed, bounded memory), or a
 * synthetic database's description. Undefined for the demo (118 rows: processed in
 * milliseconds, nothing to cache). It names the database in the processed cache.
 */
export async function searchDatabaseContentHash(source: DatabaseSource): Promise<string | undefined> {
  switch (source.type) {
    case 'demo':
      return undefined
    case 'synthetic': {
      const { rows, dim, seed } = source
      const description = { synthetic: SYNTHETIC_GENERATOR_VERSION, rows, dimension: dim, seed }
      return createHash('sha256').update(JSON.stringify(description)).digest('hex')
    }
    case 'file': {
      const hash = createHash('sha256')
      for await (const chunk of createReadStream(source.path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
        hash.update(chunk)
      }
      return hash.digest('hex')
    }
    default: {
      const never: never = source
      return never
    }
  }
}

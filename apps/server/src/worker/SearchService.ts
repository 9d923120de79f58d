import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { galoisElementOf, getHeContext, type HeContext, HeError } from '@sealbox/he-core'
import type { SearchDatabaseSource } from '@sealbox/he-core/client'
import {
  DEMO_DATABASE_NAME,
  demoSearchDatabase,
  PrivateSearchIndex,
  parseSearchDatabase,
  resolveSearchConfig,
  type SearchConfig,
  type SearchDatabase,
  type SearchEvaluation,
  type SearchKeys,
  searchDatabaseFormatOf,
  syntheticSearchDatabase,
} from '@sealbox/he-core/search'
import type { SearchSummary, ServedSearchCatalog } from '../app/SearchSummary.ts'
import type { DatabaseSource, WorkerSetup } from '../executor/WorkerSetup.ts'

async function loadDatabase(source: DatabaseSource): Promise<SearchDatabase> {
  if (source.type === 'synthetic') {
    return syntheticSearchDatabase({ rows: source.rows, dimension: source.dim, seed: source.seed })
  }
  if (source.type === 'demo') return demoSearchDatabase()
  const format = searchDatabaseFormatOf(source.path)
  if (!format) {
    throw new HeError(
      'INVALID_INPUT',
      `DATABASE ${source.path}: use a .jsonl, .csv or .npy file (or "demo" or "synthetic")`,
    )
  }
  let bytes: Buffer
  try {
    bytes = await readFile(source.path)
  } catch (error) {
    throw new HeError('INVALID_INPUT', `DATABASE ${source.path} cannot be read: ${(error as Error).message}`, {
      cause: error,
    })
  }
  return parseSearchDatabase(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), format)
}

/** What clients learn of the source: the file's name only, its path on the server is nobody's business. */
function servedSourceOf(source: DatabaseSource): SearchDatabaseSource {
  if (source.type === 'synthetic') {
    return { type: 'synthetic', seed: source.seed, rows: source.rows, dimension: source.dim }
  }
  if (source.type === 'demo') {
    // Cheap (118 rows of 256 numbers): one definition of the demo's shape.
    const { rows, dimension } = demoSearchDatabase()
    return { type: 'demo', name: DEMO_DATABASE_NAME, rows, dimension }
  }
  const format = searchDatabaseFormatOf(source.path)
  // loadDatabase refused a file without a known format before the service was built.
  if (!format) throw new HeError('INTERNAL', `DATABASE ${basename(source.path)} has no known format`)
  return { type: 'file', name: basename(source.path), format }
}

/**
 * The server half of private search in one worker: the search config, its context
 * and the database processed once into NTT-form diagonals at warm-up, shared by
 * every query of every tenant (he-core's `PrivateSearchIndex`).
 */
export class SearchService {
  readonly ctx: HeContext
  readonly config: SearchConfig
  readonly index: PrivateSearchIndex
  readonly summary: SearchSummary
  /** Galois elements a query needs (empty: no evaluation keys needed). */
  readonly galoisElements: readonly number[]
  /** Public ids and metadata of the rows (what clients name hits with). */
  readonly catalog: ServedSearchCatalog

  private constructor(
    ctx: HeContext,
    config: SearchConfig,
    index: PrivateSearchIndex,
    source: DatabaseSource,
    database: SearchDatabase,
  ) {
    this.ctx = ctx
    this.config = config
    this.index = index
    const n = config.polyModulusDegree
    this.galoisElements = config.galoisSteps.map((step) => galoisElementOf(n, step))
    this.catalog = {
      ids: database.ids,
      ...(database.metadata ? { metadata: database.metadata.map((entry) => entry ?? null) } : {}),
    }
    this.summary = {
      configId: config.configId,
      fingerprint: ctx.fingerprint,
      galoisElements: [...this.galoisElements],
      queryCiphertexts: config.queryCiphertexts,
      config,
      database: {
        source: servedSourceOf(source),
        rows: config.rows,
        dimension: config.dimension,
        processing: { ...index.processing },
      },
    }
  }

  get configId(): string {
    return this.config.configId
  }

  /** Loads and processes the configured database (the slow part of warm-up). */
  static async create(setup: WorkerSetup): Promise<SearchService> {
    const database = await loadDatabase(setup.database)
    const config = resolveSearchConfig({
      ...(setup.search.profile === undefined ? {} : { params: setup.search.profile }),
      scheme: setup.search.scheme,
      metric: setup.search.metric,
      ...(setup.search.babySteps === undefined ? {} : { babySteps: setup.search.babySteps }),
      ...(setup.search.babyStep === undefined ? {} : { babyStep: setup.search.babyStep }),
      ...(setup.search.hoistBabySteps ? { hoistBabySteps: true } : {}),
      dimension: database.dimension,
      rows: database.rows,
    })
    if (config.polyModulusDegree > setup.maxPolyDegree) {
      throw new HeError('INVALID_INPUT', `the search needs n=${config.polyModulusDegree}, above MAX_POLY_DEGREE`)
    }
    const ctx = await getHeContext(config.params)
    const index = PrivateSearchIndex.process(ctx, database, config)
    return new SearchService(ctx, config, index, setup.database, database)
  }

  /** Evaluates one query envelope (everything is verified before SEAL runs). */
  evaluate(query: Uint8Array, keys: SearchKeys | null): SearchEvaluation {
    return this.index.evaluate(query, keys)
  }

  dispose(): void {
    this.index.dispose()
  }
}

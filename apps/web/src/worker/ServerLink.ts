import { getHeContext, HeError } from '@sealbox/he-core'
import { SealboxClient, type SearchDatabaseSource, type ServerWork } from '@sealbox/he-core/client'
import { decodeEnvelope, encodeBundle } from '@sealbox/he-core/envelope'
import {
  demoSearchDatabase,
  PrivateSearchClient,
  plaintextSearchScores,
  type SearchConfig,
  syntheticSearchDatabase,
  topKIndices,
  verifySearchConfig,
} from '@sealbox/he-core/search'
import type { RequestOf } from './protocol.ts'
import type {
  ExecutorChoice,
  SearchFacts,
  ServerConnected,
  ServerSearched,
  ServerWorkReport,
} from './serverProtocol.ts'

/** The worker's connection to a sealbox server and the private-search client state it keeps. */
interface SearchState {
  config: SearchConfig
  /** The server's synthetic database rebuilt here from its seed, to check results against plaintext. */
  oracle: ReturnType<typeof syntheticSearchDatabase> | undefined
  client: PrivateSearchClient
  keygenMs: number
  /** Name of the uploaded Galois keys on the server (undefined: not uploaded, or none needed). */
  keySet: string | undefined
  keyBytes: number | undefined
  keyUploadMs: number | undefined
}

function workOf(work: ServerWork, bytesUp: number, bytesDown: number): ServerWorkReport {
  return {
    phases: { ...work.timing },
    ...(work.executor ? { executor: work.executor } : {}),
    elapsedMs: work.elapsedMs,
    bytesUp,
    bytesDown,
  }
}

function factsOf(config: SearchConfig, source: SearchDatabaseSource | undefined): SearchFacts {
  return {
    configId: config.configId,
    rows: config.rows,
    dimension: config.dimension,
    scheme: config.scheme,
    polyModulusDegree: config.polyModulusDegree,
    plainModulus: config.plainModulus,
    metric: config.metric,
    scale: config.scale,
    babySteps: config.babySteps,
    babyStep: config.babyStep,
    queryCiphertexts: config.queryCiphertexts,
    galoisSteps: [...config.galoisSteps],
    blocks: config.blocks.length,
    ...(source ? { source } : {}),
  }
}

/**
 * One connection to a sealbox server, from the worker: a local-mode tenant token,
 * the server's search config, and a private-search client whose secret key is
 * made here and never sent. Replacing the connection disposes the search client.
 */
export class ServerLink {
  #client: SealboxClient | undefined
  #search: SearchState | undefined
  #searchConfig: (SearchConfig & { fingerprint: string }) | undefined
  #source: SearchDatabaseSource | undefined

  /** Connects (same origin for an empty URL), gets a tenant token and reads the search config. */
  async connect(request: RequestOf<'serverConnect'>): Promise<Omit<ServerConnected, 'type' | 'id'>> {
    this.dispose()
    const baseUrl = request.baseUrl.trim() === '' ? self.location.origin : request.baseUrl.trim()
    const anonymous = new SealboxClient({ baseUrl })
    const { session, client } = await anonymous.createSession()
    this.#client = client
    const readiness = await client.readiness()
    let search: SearchFacts | undefined
    let searchError: string | undefined
    try {
      const served = await client.searchConfig()
      // Derived numbers are re-derived here, never trusted: the configId must match.
      const config = { ...verifySearchConfig(served), fingerprint: served.fingerprint }
      this.#searchConfig = config
      // The client has checked the whole reply against the contract, the database's source included.
      const source = served.database.source
      this.#source = source
      search = factsOf(config, source)
    } catch (error) {
      searchError = error instanceof Error ? error.message : String(error)
    }
    return {
      baseUrl,
      tenant: session.tenant,
      mode: session.mode,
      ready: readiness.ready,
      executors: readiness.executors.map(({ mode, size, warm, running, queued, default: isDefault }) => ({
        mode,
        size,
        warm,
        running,
        queued,
        default: isDefault,
      })),
      ...(search ? { search } : {}),
      ...(searchError ? { searchError } : {}),
    }
  }

  #requireClient(executor: ExecutorChoice): SealboxClient {
    if (!this.#client) throw new HeError('INVALID_INPUT', 'Connect to the server first.')
    return executor === 'default' ? this.#client : this.#client.with({ executor })
  }

  /** Uploads evaluation keys as one bundle (secret keys are refused before anything is sent). */
  async uploadKeys(request: RequestOf<'serverUploadKeys'>) {
    const client = this.#requireClient('default')
    const kinds = request.envelopes.map((bytes) => {
      const envelope = decodeEnvelope(bytes, { kind: ['relinKeys', 'galoisKeys'], refuseSecretKey: true })
      return envelope.kind
    })
    const body = encodeBundle(request.envelopes, { labels: kinds })
    const result = await client.putKeySet(request.name, body)
    return {
      name: request.name,
      bytes: body.byteLength,
      kinds,
      replaced: result.replaced,
      work: workOf(result, body.byteLength, 0),
    }
  }

  /** Runs a program on the server; outputs come back as envelopes. */
  async evaluate(request: RequestOf<'serverEvaluate'>) {
    const client = this.#requireClient(request.executor)
    const bytesUp = Object.values(request.inputs).reduce((sum, bytes) => sum + bytes.byteLength, 0)
    const result = await client.evaluate({
      params: request.params,
      program: request.program,
      inputs: request.inputs,
      ...(request.keySet ? { keySet: request.keySet } : {}),
    })
    const bytesDown = Object.values(result.outputs).reduce((sum, bytes) => sum + bytes.byteLength, 0)
    return { outputs: result.outputs, steps: result.steps, work: workOf(result, bytesUp, bytesDown) }
  }

  /**
   * One private search: keys on first use (Galois keys for exactly the config's steps,
   * uploaded seeded), the query encrypted here, scores decrypted and ranked here.
   */
  async search(request: RequestOf<'serverSearch'>): Promise<Omit<ServerSearched, 'type' | 'id'>> {
    const client = this.#requireClient(request.executor)
    const search = await this.#searchState()
    let keyUploadMs: number | undefined
    if (search.config.galoisSteps.length > 0 && search.keySet === undefined) {
      const keys = search.client.evaluationKeys()
      if (keys) {
        const name = `search-${search.client.keySet.id.slice(0, 12)}`
        const started = performance.now()
        await this.#requireClient('default').putKeySet(name, keys)
        keyUploadMs = performance.now() - started
        search.keySet = name
        search.keyBytes = keys.byteLength
        search.keyUploadMs = keyUploadMs
      }
    }
    let started = performance.now()
    const query = search.client.encryptQuery(request.vector)
    const encryptMs = performance.now() - started
    const result = await client.search(query, search.keySet ? { keySet: search.keySet } : {})
    const response = result.responses[0]
    if (!response) throw new HeError('INTERNAL', 'the server answered with no response')
    started = performance.now()
    const ranked = search.client.rank(response, request.k)
    const decryptMs = performance.now() - started
    const firstSearch = keyUploadMs !== undefined
    const oracleRows = search.oracle
      ? topKIndices(plaintextSearchScores(search.config, search.oracle, request.vector), request.k)
      : undefined
    return {
      hits: ranked.hits.map(({ rank, row, id, score, similarity, metadata }) => ({
        rank,
        row,
        id: typeof id === 'bigint' ? String(id) : id,
        score,
        similarity,
        ...(metadata === undefined ? {} : { metadata }),
      })),
      minNoiseBudget: ranked.minNoiseBudget,
      ...(oracleRows ? { oracleRows } : {}),
      client: {
        ...(firstSearch ? { keygenMs: search.keygenMs } : {}),
        ...(keyUploadMs !== undefined ? { keyUploadMs } : {}),
        ...(search.keyBytes !== undefined ? { keyBytes: search.keyBytes } : {}),
        encryptMs,
        decryptMs,
      },
      queryMs: result.queryMs,
      work: workOf(result, query.byteLength, response.byteLength),
    }
  }

  /** A row of the server's database when it is the public synthetic one. */
  async row(index: number): Promise<number[]> {
    const search = await this.#searchState()
    if (!search.oracle) throw new HeError('NOT_FOUND', "The server's database is private; type a query vector instead.")
    if (index >= search.config.rows) {
      throw new HeError('INVALID_INPUT', `Row ${index} does not exist; the database has ${search.config.rows} rows.`)
    }
    const d = search.config.dimension
    return Array.from(search.oracle.vectors.subarray(index * d, (index + 1) * d))
  }

  async #searchState(): Promise<SearchState> {
    if (this.#search) return this.#search
    const config = this.#searchConfig
    if (!config) throw new HeError('NOT_FOUND', 'This server serves no private search (or it is still warming up).')
    const ctx = await getHeContext(config.params)
    if (ctx.fingerprint !== config.fingerprint) {
      throw new HeError(
        'PARAMS_MISMATCH',
        "The server's search parameters build a different context here; versions differ.",
      )
    }
    // The catalog (public ids and metadata) names the hits; a server without one still ranks by row.
    const catalog = await this.#client?.searchCatalog().catch(() => undefined)
    const started = performance.now()
    const client = PrivateSearchClient.create(ctx, config, catalog ? { catalog } : {})
    // A synthetic or demo database is public: rebuild it to show the plaintext ranking next to the result.
    const source = this.#source
    const oracle =
      source?.type === 'synthetic'
        ? syntheticSearchDatabase({ rows: source.rows, dimension: source.dimension, seed: source.seed })
        : source?.type === 'demo'
          ? demoSearchDatabase()
          : undefined
    this.#search = {
      config,
      oracle,
      client,
      keygenMs: performance.now() - started,
      keySet: undefined,
      keyBytes: undefined,
      keyUploadMs: undefined,
    }
    return this.#search
  }

  dispose(): void {
    this.#search?.client.dispose()
    this.#search = undefined
    this.#searchConfig = undefined
    this.#source = undefined
    this.#client = undefined
  }
}

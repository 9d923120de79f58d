import { concatBytes } from '../envelope/concatBytes.ts'
import { splitEnvelopes } from '../envelope/splitEnvelopes.ts'
import { HeError } from '../errors/HeError.ts'
import type { SearchCatalog } from '../search/SearchDatabase.ts'
import type {
  CallOptions,
  EvaluateCall,
  EvaluateCallResult,
  PutKeySetResult,
  RouteCallInput,
  RouteResult,
  SealboxClientOptions,
  SearchCallResult,
  ServerExecutorMode,
} from './clientTypes.ts'
import { SEARCH_CATALOG_MAX_PAGE, type SearchCatalogPage, searchCatalogRoute } from './contract/catalogContract.ts'
import { evaluateRoute } from './contract/evaluateContract.ts'
import {
  healthRoute,
  metricsRoute,
  readinessRoute,
  type ServerHealth,
  type ServerReadiness,
} from './contract/healthContract.ts'
import { SEALBOX_HEADERS } from './contract/httpContract.ts'
import {
  deleteKeySetRoute,
  getKeySetRoute,
  type KeySetInfo,
  type KeySetList,
  listKeySetsRoute,
  putKeySetRoute,
} from './contract/keySetContract.ts'
import type { RouteContract, RouteInput } from './contract/routeContract.ts'
import { type ServerSearchConfig, searchConfigRoute, searchRoute } from './contract/searchContract.ts'
import { searchDeploymentConfigRoute } from './contract/searchShardsContract.ts'
import { createSessionRoute, type ServerSession } from './contract/sessionContract.ts'
import { decodeEvaluateReply, type EvaluateReply, encodeEvaluateRequest } from './evaluateRequestBody.ts'
import { contractError, pathOf, readRouteReply, serverWorkOf } from './readReply.ts'
import { readSearchCatalog } from './readSearchCatalog.ts'
import { DEFAULT_RETRY_POLICY } from './retryPolicy.ts'
import { type ClientTransport, sendRequest } from './sendRequest.ts'
import { readShardedSearchConfig, type SearchShardLayout, type ShardCaller, searchShards } from './shardedSearch.ts'

/** A route's input is optional when every part of it is (no path parameters, no body). */
type CallArgs<R extends RouteContract> =
  object extends RouteInput<R> ? [input?: RouteCallInput<R>] : [input: RouteCallInput<R>]

/** The input of any route, as the generic call reads it. */
interface AnyRouteCall extends CallOptions {
  params?: Record<string, string>
  query?: Record<string, string | number | undefined>
  body?: unknown
  headers?: Record<string, string>
}

/**
 * Every search this client sends accepts dropped low-order bits: `PrivateSearchClient` restores
 * them (within the config's rule) and reads full-bit blocks alike, and an older server, which
 * drops none, ignores the header.
 */
const DROPPED_BITS_ACCEPTED = { [SEALBOX_HEADERS.droppedBits]: 'accept' }

/**
 * A typed client for the sealbox server API, on `fetch` (browsers, Web Workers and
 * Node alike). Every call goes through `call(route, input)`, whose input and reply types
 * are inferred from the route's contract and whose reply is checked against it at run
 * time; the named methods are that call plus what each route's bytes mean. Binary bodies
 * are envelopes; JSON elsewhere. Every error response becomes an `HeError` with the
 * server's code (its HTTP status, hint and Retry-After in `details`), and work calls
 * return the server's `Server-Timing` phases.
 */
export class SealboxClient {
  readonly baseUrl: string
  readonly token: string | undefined
  readonly executor: ServerExecutorMode | undefined
  readonly #transport: ClientTransport
  readonly #catalogCache: Map<string, { etag: string; page: SearchCatalogPage }>
  /** What `searchConfig` learned of the deployment (`read`: it has run once), shared by `with()`. */
  readonly #deployment: { read?: boolean; layout?: SearchShardLayout }

  constructor(options: SealboxClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '')
    this.token = options.token
    this.executor = options.executor
    const fetchImpl = options.fetch ?? globalThis.fetch
    if (typeof fetchImpl !== 'function') throw new HeError('INVALID_INPUT', 'no fetch implementation available')
    this.#transport = {
      baseUrl: this.baseUrl,
      token: this.token,
      executor: this.executor,
      fetch: fetchImpl.bind(globalThis),
      retry:
        options.retry === false
          ? { ...DEFAULT_RETRY_POLICY, attempts: 1 }
          : { ...DEFAULT_RETRY_POLICY, ...options.retry },
    }
    this.#catalogCache = options.catalogCache ?? new Map()
    this.#deployment = options.deployment ?? {}
  }

  /** The same client with another token (or executor). */
  with(options: Partial<Omit<SealboxClientOptions, 'baseUrl'>>): SealboxClient {
    return new SealboxClient({
      baseUrl: this.baseUrl,
      fetch: this.#transport.fetch,
      catalogCache: this.#catalogCache,
      deployment: this.#deployment,
      retry: this.#transport.retry,
      ...(this.token === undefined ? {} : { token: this.token }),
      ...(this.executor === undefined ? {} : { executor: this.executor }),
      ...options,
    })
  }

  /**
   * Calls one route of the contract: `input` (path parameters, query string, body) and
   * the reply are typed from `route`, and the reply is checked against the schema of its
   * status. Any status the route answers with is a reply (a 503 readiness, a 304 page);
   * an error reply throws its HeError. GET, PUT, DELETE and routes the contract marks
   * `idempotent` are retried as the client's retry policy says.
   */
  async call<R extends RouteContract>(route: R, ...[input]: CallArgs<R>): Promise<RouteResult<R>> {
    // The input's shape is checked against the route where the call is written (CallArgs).
    const call = (input ?? {}) as AnyRouteCall
    const { response, elapsedMs } = await sendRequest(this.#transport, {
      method: route.method,
      path: pathOf(route, call),
      body: call.body,
      contentType: route.consumes?.[0],
      headers: call.headers,
      accept: Object.keys(route.response).map(Number),
      idempotent: route.idempotent === true,
      signal: call.signal,
    })
    const reply = await readRouteReply(route, response)
    return { ...reply, headers: response.headers, work: serverWorkOf(response, elapsedMs) }
  }

  /** Local-mode servers: a new anonymous tenant; returns a client that uses its token. */
  async createSession(options: CallOptions = {}): Promise<{ session: ServerSession; client: SealboxClient }> {
    const { body: session } = await this.call(createSessionRoute, options)
    return { session, client: this.with({ token: session.token }) }
  }

  /** Liveness (answered by the server's event loop). */
  async health(options: CallOptions = {}): Promise<ServerHealth> {
    return (await this.call(healthRoute, options)).body
  }

  /** Readiness; resolves with `ready: false` (HTTP 503) while workers warm up. */
  async readiness(options: CallOptions = {}): Promise<ServerReadiness> {
    return (await this.call(readinessRoute, options)).body
  }

  /** Polls `/readyz` until the server is ready (or `timeoutMs` passes). */
  async waitUntilReady(timeoutMs = 60_000, options: CallOptions = {}): Promise<ServerReadiness> {
    const until = Date.now() + timeoutMs
    for (;;) {
      try {
        const state = await this.readiness(options)
        if (state.ready) return state
      } catch (error) {
        if (options.signal?.aborted) throw error
      }
      if (Date.now() > until) throw new HeError('TIMEOUT', `the server was not ready within ${timeoutMs} ms`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }

  /** The search config the server serves (what the search client needs). */
  async searchConfig(options: CallOptions = {}): Promise<ServerSearchConfig> {
    const { body } = await this.call(searchDeploymentConfigRoute, options)
    if ('configId' in body) {
      this.#deployment.layout = undefined
      this.#deployment.read = true
      return body
    }
    const { config, layout } = await readShardedSearchConfig(body, this.#shardCaller(), options)
    this.#deployment.layout = layout
    this.#deployment.read = true
    return config
  }

  /** The shards `searchConfig` found behind a sharded proxy (undefined: one database per node). */
  get searchShards(): SearchShardLayout | undefined {
    return this.#deployment.layout
  }

  #shardCaller(): ShardCaller {
    const at = (prefix: string) =>
      new SealboxClient({
        baseUrl: `${this.baseUrl}${prefix}`,
        fetch: this.#transport.fetch,
        retry: this.#transport.retry,
        ...(this.token === undefined ? {} : { token: this.token }),
        ...(this.executor === undefined ? {} : { executor: this.executor }),
      })
    return {
      config: async (prefix, options) => (await at(prefix).call(searchConfigRoute, options)).body,
      search: (prefix, body, options) =>
        at(prefix).call(searchRoute, {
          signal: options.signal,
          query: { keySet: options.keySet },
          headers: options.droppedBits === false ? {} : DROPPED_BITS_ACCEPTED,
          body,
        }),
    }
  }

  /**
   * The public ids and metadata of every row of the server's database, page by page
   * (`GET /api/v1/search/catalog`). Pages seen before are revalidated by ETag and not
   * downloaded again. Pass the result to `PrivateSearchClient.create(…, { catalog })`
   * so `rank()` names its hits.
   */
  async searchCatalog(options: CallOptions = {}): Promise<SearchCatalog & { configId: string }> {
    return readSearchCatalog((offset) => this.#catalogPage(offset, options))
  }

  async #catalogPage(offset: number, options: CallOptions): Promise<SearchCatalogPage> {
    const query = { offset, limit: SEARCH_CATALOG_MAX_PAGE }
    const key = pathOf(searchCatalogRoute, { query })
    const cached = this.#catalogCache.get(key)
    const reply = await this.call(searchCatalogRoute, {
      ...options,
      query,
      ...(cached ? { headers: { 'if-none-match': cached.etag } } : {}),
    })
    if (reply.status === 304) {
      if (!cached) throw contractError(searchCatalogRoute, 'HTTP 304 to a request without If-None-Match')
      return cached.page
    }
    const etag = reply.headers.get('etag')
    if (etag) this.#catalogCache.set(key, { etag, page: reply.body })
    return reply.body
  }

  /** Uploads (or replaces) evaluation keys: an envelope or a bundle of relin/Galois keys. */
  async putKeySet(id: string, keys: Uint8Array, options: CallOptions = {}): Promise<PutKeySetResult> {
    const reply = await this.call(putKeySetRoute, { ...options, params: { id }, body: keys })
    return { keySet: reply.body, replaced: reply.status === 200, ...reply.work }
  }

  async listKeySets(options: CallOptions = {}): Promise<KeySetList> {
    return (await this.call(listKeySetsRoute, options)).body
  }

  async getKeySet(id: string, options: CallOptions = {}): Promise<KeySetInfo> {
    return (await this.call(getKeySetRoute, { ...options, params: { id } })).body
  }

  async deleteKeySet(id: string, options: CallOptions = {}): Promise<void> {
    await this.call(deleteKeySetRoute, { ...options, params: { id } })
  }

  /**
   * Sends one or several encrypted queries (query bundles from the search client) and
   * returns one response bundle per query, in order. Behind a sharded proxy (found by
   * `searchConfig`; a search made before it reads the config first) the queries go to every shard at
   * once and each query's parts are merged into one response for the whole database; a
   * shard that does not answer fails the call with its code, naming the shard and its rows.
   * The request accepts response blocks that drop low-order bits (`x-sealbox-dropped-bits`)
   * unless `droppedBits` is false.
   */
  async search(
    queries: Uint8Array | readonly Uint8Array[],
    options: CallOptions & {
      keySet?: string
      /**
       * Behind a sharded proxy: answer with the shards that answered, listing the others in
       * `missingShards` (rank with `rank(…, { partial: true })`), instead of failing.
       */
      partial?: boolean
      /**
       * Accept response blocks that drop low-order bits (default true: `PrivateSearchClient`
       * restores them). False asks for every bit, for responses handed on to an he-core that
       * predates dropped bits.
       */
      droppedBits?: boolean
    } = {},
  ): Promise<SearchCallResult> {
    const list = queries instanceof Uint8Array ? [queries] : [...queries]
    // Never sent blind: at a sharded proxy's base URL the whole-site route reaches one shard.
    if (!this.#deployment.read) await this.searchConfig({ ...(options.signal ? { signal: options.signal } : {}) })
    const layout = this.#deployment.layout
    if (layout) return searchShards(layout, this.#shardCaller(), list, options)
    const reply = await this.call(searchRoute, {
      signal: options.signal,
      query: { keySet: options.keySet },
      headers: options.droppedBits === false ? {} : DROPPED_BITS_ACCEPTED,
      body: concatBytes(list),
    })
    const queryMs = (reply.headers.get(SEALBOX_HEADERS.queryMs) ?? '')
      .split(',')
      .filter((part) => part !== '')
      .map(Number)
    return { responses: splitEnvelopes(reply.body, { what: 'response envelope' }), queryMs, ...reply.work }
  }

  /**
   * Runs an HE program on the server. The body is binary (`encodeEvaluateRequest`: a JSON
   * header, then the input envelopes as they are); the key set also goes in the URL, so a
   * proxy can route on it. The reply's step reports are checked against their schema.
   */
  async evaluate(call: EvaluateCall, options: CallOptions = {}): Promise<EvaluateCallResult> {
    const { keySet, ...request } = call
    const reply = await this.call(evaluateRoute, {
      signal: options.signal,
      query: { keySet },
      body: encodeEvaluateRequest(request),
    })
    let decoded: EvaluateReply
    try {
      decoded = decodeEvaluateReply(reply.body)
    } catch (error) {
      throw new HeError('INTERNAL', `the server's evaluate reply does not match the contract: ${String(error)}`, {
        cause: error,
      })
    }
    return { ...decoded, ...reply.work }
  }

  // Operations calls (the benchmarks and a monitor use them).

  /** The server's Prometheus metrics (`GET /metrics`), as Prometheus text exposition. */
  async metrics(options: CallOptions = {}): Promise<string> {
    return (await this.call(metricsRoute, options)).body
  }
}

import type { z } from 'zod'
import { concatBytes } from '../envelope/concatBytes.ts'
import { splitEnvelopes } from '../envelope/splitEnvelopes.ts'
import { HeError } from '../errors/HeError.ts'
import type { SearchCatalog } from '../search/SearchDatabase.ts'
import type {
  EvaluateCall,
  EvaluateCallResult,
  PutKeySetResult,
  SearchCallResult,
  ServerExecutorMode,
  ServerWork,
} from './clientTypes.ts'
import {
  SEARCH_CATALOG_MAX_PAGE,
  type SearchCatalogPage,
  SearchCatalogPageSchema,
  searchCatalogRoute,
} from './contract/catalogContract.ts'
import { evaluateRoute } from './contract/evaluateContract.ts'
import {
  healthRoute,
  metricsRoute,
  readinessRoute,
  SERVER_EXECUTOR_MODES,
  type ServerHealth,
  ServerHealthSchema,
  type ServerReadiness,
  ServerReadinessSchema,
} from './contract/healthContract.ts'
import { SEALBOX_HEADERS } from './contract/httpContract.ts'
import {
  deleteKeySetRoute,
  getKeySetRoute,
  type KeySetInfo,
  KeySetInfoSchema,
  type KeySetList,
  KeySetListSchema,
  listKeySetsRoute,
  putKeySetRoute,
} from './contract/keySetContract.ts'
import type { RouteContract } from './contract/routeContract.ts'
import {
  type ServerSearchConfig,
  ServerSearchConfigSchema,
  searchConfigRoute,
  searchRoute,
} from './contract/searchContract.ts'
import { createSessionRoute, type ServerSession, ServerSessionSchema } from './contract/sessionContract.ts'
import { decodeEvaluateReply, type EvaluateReply, encodeEvaluateRequest } from './evaluateRequestBody.ts'
import { contractError, heErrorOfResponse, jsonOf, parseReply, pathOf } from './readReply.ts'
import {
  DEFAULT_RETRY_POLICY,
  IDEMPOTENT_METHODS,
  NOT_RETRIED_CODES,
  RETRIED_STATUSES,
  type RetryPolicy,
  retryDelayMs,
  sleepUnlessAborted,
} from './retryPolicy.ts'
import { parseServerTiming } from './serverTiming.ts'

/** Options of a `SealboxClient`. */
export interface SealboxClientOptions {
  /** The server, e.g. `http://localhost:8080` (a path prefix is kept). */
  baseUrl: string
  /** Bearer token; local-mode servers hand one out (`createSession`). */
  token?: string
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch
  /** Ask for an executor per request (only servers with ALLOW_EXECUTOR_OVERRIDE accept). */
  executor?: ServerExecutorMode
  /**
   * Catalog pages already downloaded, by URL, with their ETags: asked again with
   * If-None-Match and not downloaded twice. Shared by the clients `with()` makes.
   */
  catalogCache?: Map<string, { etag: string; page: SearchCatalogPage }>
  /**
   * Retries of idempotent calls (reads, key-set PUT and DELETE, search, evaluate) after a
   * 502, 503 or 504 or a failed connection, honouring Retry-After with jittered backoff
   * (`DEFAULT_RETRY_POLICY`: 4 tries). `false`: every failure is thrown at once.
   */
  retry?: Partial<RetryPolicy> | false
}

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal
}

/** One request of a route: its path parameters, query string and body. */
interface RouteCall extends CallOptions {
  params?: Record<string, string>
  query?: Record<string, string | number | undefined>
  body?: unknown
  headers?: Record<string, string>
  /** A POST that may be sent twice (search, evaluate: pure functions of the request). */
  idempotent?: boolean
}

interface RawResponse {
  response: Response
  elapsedMs: number
}

const BINARY = 'application/octet-stream'

/**
 * A typed client for the sealbox server API, on `fetch` (browsers, Web Workers and
 * Node alike). Binary bodies are envelopes; JSON elsewhere. Every error response
 * becomes an `HeError` with the server's code (its HTTP status, hint and Retry-After
 * in `details`), and work calls return the server's `Server-Timing` phases.
 */
export class SealboxClient {
  readonly baseUrl: string
  readonly token: string | undefined
  readonly executor: ServerExecutorMode | undefined
  readonly #fetch: typeof fetch
  readonly #catalogCache: Map<string, { etag: string; page: SearchCatalogPage }>
  readonly #retry: RetryPolicy

  constructor(options: SealboxClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '')
    this.token = options.token
    this.executor = options.executor
    const fetchImpl = options.fetch ?? globalThis.fetch
    if (typeof fetchImpl !== 'function') throw new HeError('INVALID_INPUT', 'no fetch implementation available')
    this.#fetch = fetchImpl.bind(globalThis)
    this.#catalogCache = options.catalogCache ?? new Map()
    this.#retry =
      options.retry === false ? { ...DEFAULT_RETRY_POLICY, attempts: 1 } : { ...DEFAULT_RETRY_POLICY, ...options.retry }
  }

  /** The same client with another token (or executor). */
  with(options: Partial<Omit<SealboxClientOptions, 'baseUrl'>>): SealboxClient {
    return new SealboxClient({
      baseUrl: this.baseUrl,
      fetch: this.#fetch,
      catalogCache: this.#catalogCache,
      retry: this.#retry,
      ...(this.token === undefined ? {} : { token: this.token }),
      ...(this.executor === undefined ? {} : { executor: this.executor }),
      ...options,
    })
  }

  /** Local-mode servers: a new anonymous tenant; returns a client that uses its token. */
  async createSession(options: CallOptions = {}): Promise<{ session: ServerSession; client: SealboxClient }> {
    const session = await this.#json(createSessionRoute, ServerSessionSchema, options)
    return { session, client: this.with({ token: session.token }) }
  }

  /** Liveness (answered by the server's event loop). */
  async health(options: CallOptions = {}): Promise<ServerHealth> {
    return this.#json(healthRoute, ServerHealthSchema, options)
  }

  /** Readiness; resolves with `ready: false` (HTTP 503) while workers warm up. */
  async readiness(options: CallOptions = {}): Promise<ServerReadiness> {
    const { response } = await this.#send(readinessRoute.method, readinessRoute.path, undefined, {
      ...options,
      accept: [503],
    })
    return parseReply(ServerReadinessSchema, await jsonOf(response, readinessRoute), readinessRoute, response.status)
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
    return this.#json(searchConfigRoute, ServerSearchConfigSchema, options)
  }

  /**
   * The public ids and metadata of every row of the server's database, page by page
   * (`GET /api/v1/search/catalog`). Pages seen before are revalidated by ETag and not
   * downloaded again. Pass the result to `PrivateSearchClient.create(…, { catalog })`
   * so `rank()` names its hits.
   */
  async searchCatalog(options: CallOptions = {}): Promise<SearchCatalog & { configId: string }> {
    const ids: Array<string | number> = []
    const metadata: unknown[] = []
    let hasMetadata = false
    let configId: string | undefined
    let total = Number.POSITIVE_INFINITY
    while (ids.length < total) {
      const page = await this.#catalogPage(ids.length, options)
      if (configId !== undefined && page.configId !== configId) {
        throw new HeError('CONFLICT', 'the server changed its database while the catalog was being read; read it again')
      }
      if (page.offset !== ids.length || (page.ids.length === 0 && ids.length < page.total)) {
        throw new HeError('INVALID_INPUT', `the server sent catalog rows from ${page.offset}, expected ${ids.length}`)
      }
      configId = page.configId
      total = page.total
      ids.push(...page.ids)
      if (page.metadata) {
        hasMetadata = true
        metadata.push(...page.metadata.map((entry) => (entry === null ? undefined : entry)))
      }
    }
    return { configId: configId ?? '', ids, ...(hasMetadata ? { metadata } : {}) }
  }

  async #catalogPage(offset: number, options: CallOptions): Promise<SearchCatalogPage> {
    const path = pathOf(searchCatalogRoute, { query: { offset, limit: SEARCH_CATALOG_MAX_PAGE } })
    const cached = this.#catalogCache.get(path)
    const { response } = await this.#send(searchCatalogRoute.method, path, undefined, {
      ...options,
      ...(cached ? { headers: { 'if-none-match': cached.etag }, accept: [304] } : {}),
    })
    if (response.status === 304 && cached) return cached.page
    const page = parseReply(
      SearchCatalogPageSchema,
      await jsonOf(response, searchCatalogRoute),
      searchCatalogRoute,
      response.status,
    )
    const etag = response.headers.get('etag')
    if (etag) this.#catalogCache.set(path, { etag, page })
    return page
  }

  /** Uploads (or replaces) evaluation keys: an envelope or a bundle of relin/Galois keys. */
  async putKeySet(id: string, keys: Uint8Array, options: CallOptions = {}): Promise<PutKeySetResult> {
    const raw = await this.#route(putKeySetRoute, { ...options, params: { id }, body: keys })
    const keySet = parseReply(
      KeySetInfoSchema,
      await jsonOf(raw.response, putKeySetRoute),
      putKeySetRoute,
      raw.response.status,
    )
    return { keySet, replaced: raw.response.status === 200, ...work(raw) }
  }

  async listKeySets(options: CallOptions = {}): Promise<KeySetList> {
    return this.#json(listKeySetsRoute, KeySetListSchema, options)
  }

  async getKeySet(id: string, options: CallOptions = {}): Promise<KeySetInfo> {
    return this.#json(getKeySetRoute, KeySetInfoSchema, { ...options, params: { id } })
  }

  async deleteKeySet(id: string, options: CallOptions = {}): Promise<void> {
    const { response } = await this.#route(deleteKeySetRoute, { ...options, params: { id } })
    if (response.status !== 204) throw contractError(deleteKeySetRoute, `HTTP ${response.status} instead of 204`)
  }

  /**
   * Sends one or several encrypted queries (query bundles from the search client) and
   * returns one response bundle per query, in order.
   */
  async search(
    queries: Uint8Array | readonly Uint8Array[],
    options: CallOptions & { keySet?: string } = {},
  ): Promise<SearchCallResult> {
    const list = queries instanceof Uint8Array ? [queries] : [...queries]
    const raw = await this.#route(searchRoute, {
      ...options,
      idempotent: true,
      query: { keySet: options.keySet },
      body: concatBytes(list),
    })
    const body = new Uint8Array(await raw.response.arrayBuffer())
    const queryMs = (raw.response.headers.get(SEALBOX_HEADERS.queryMs) ?? '')
      .split(',')
      .filter((part) => part !== '')
      .map(Number)
    return { responses: splitEnvelopes(body, { what: 'response envelope' }), queryMs, ...work(raw) }
  }

  /**
   * Runs an HE program on the server. The body is binary (`encodeEvaluateRequest`: a JSON
   * header, then the input envelopes as they are); the key set also goes in the URL, so a
   * proxy can route on it. The reply's step reports are checked against their schema.
   */
  async evaluate(call: EvaluateCall, options: CallOptions = {}): Promise<EvaluateCallResult> {
    const { keySet, ...request } = call
    const raw = await this.#route(evaluateRoute, {
      ...options,
      idempotent: true,
      query: { keySet },
      body: encodeEvaluateRequest(request),
    })
    const body = new Uint8Array(await raw.response.arrayBuffer())
    let reply: EvaluateReply
    try {
      reply = decodeEvaluateReply(body)
    } catch (error) {
      throw new HeError('INTERNAL', `the server's evaluate reply does not match the contract: ${String(error)}`, {
        cause: error,
      })
    }
    return { ...reply, ...work(raw) }
  }

  /** Sends a route's request; an error reply throws its HeError. */
  async #route(route: RouteContract, call: RouteCall): Promise<RawResponse> {
    return this.#send(route.method, pathOf(route, call), call.body, call)
  }

  /** A route's JSON reply, checked against `schema` (the route's schema for its success status). */
  async #json<S extends z.ZodType>(route: RouteContract, schema: S, call: RouteCall): Promise<z.output<S>> {
    const { response } = await this.#route(route, call)
    return parseReply(schema, await jsonOf(response, route), route, response.status)
  }

  async #send(
    method: string,
    path: string,
    body: unknown,
    options: CallOptions & { headers?: Record<string, string>; accept?: readonly number[]; idempotent?: boolean },
  ): Promise<RawResponse> {
    const retries = IDEMPOTENT_METHODS.includes(method) || options.idempotent === true ? this.#retry.attempts - 1 : 0
    for (let retry = 0; ; retry++) {
      let failure: HeError
      try {
        return await this.#sendOnce(method, path, body, options)
      } catch (error) {
        if (!(error instanceof HeError)) throw error
        failure = error
      }
      const status = failure.details?.status
      const retryable =
        failure.details?.network === true ||
        (typeof status === 'number' &&
          RETRIED_STATUSES.includes(status) &&
          // A proxy's own 504 page also reads as TIMEOUT: only the server's error body is final.
          !(failure.details?.hint !== undefined && NOT_RETRIED_CODES.includes(failure.code)))
      if (!retryable || retry >= retries) throw failure
      const after = failure.details?.retryAfterSeconds
      await sleepUnlessAborted(
        retryDelayMs(this.#retry, retry, typeof after === 'number' ? after : undefined),
        options.signal,
      ).catch((error: unknown) => {
        throw new HeError('CANCELLED', `${method} ${path} was aborted`, { cause: error })
      })
    }
  }

  async #sendOnce(
    method: string,
    path: string,
    body: unknown,
    options: CallOptions & { headers?: Record<string, string>; accept?: readonly number[] },
  ): Promise<RawResponse> {
    const headers: Record<string, string> = { ...options.headers }
    if (this.token !== undefined) headers.authorization = `Bearer ${this.token}`
    if (this.executor !== undefined) headers['x-sealbox-executor'] = this.executor
    let payload: BodyInit | undefined
    if (body instanceof Uint8Array) {
      headers['content-type'] = BINARY
      payload = body as Uint8Array<ArrayBuffer>
    } else if (body !== undefined) {
      headers['content-type'] = 'application/json'
      payload = JSON.stringify(body)
    }
    const started = performance.now()
    let response: Response
    try {
      response = await this.#fetch(`${this.baseUrl}${path}`, {
        method,
        headers,
        ...(payload === undefined ? {} : { body: payload }),
        ...(options.signal ? { signal: options.signal } : {}),
      })
    } catch (error) {
      if (options.signal?.aborted) throw new HeError('CANCELLED', `${method} ${path} was aborted`, { cause: error })
      throw new HeError('INTERNAL', `${method} ${path}: the server could not be reached (${String(error)})`, {
        cause: error,
        details: { network: true },
      })
    }
    if (!response.ok && !options.accept?.includes(response.status)) throw await heErrorOfResponse(response)
    return { response, elapsedMs: performance.now() - started }
  }

  // Operations calls (the benchmarks and a monitor use them).

  /** The server's Prometheus metrics (`GET /metrics`), as Prometheus text exposition. */
  async metrics(options: CallOptions = {}): Promise<string> {
    const { response } = await this.#route(metricsRoute, options)
    return response.text()
  }
}

function work(raw: RawResponse): ServerWork {
  const executor = raw.response.headers.get('x-sealbox-executor')
  return {
    timing: parseServerTiming(raw.response.headers.get('server-timing')),
    executor: (SERVER_EXECUTOR_MODES as readonly (string | null)[]).includes(executor)
      ? (executor as ServerExecutorMode)
      : undefined,
    elapsedMs: raw.elapsedMs,
  }
}

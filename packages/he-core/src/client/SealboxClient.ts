import type { z } from 'zod'
import { base64ToBytes, bytesToBase64 } from '../envelope/base64.ts'
import { peekEnvelope } from '../envelope/readEnvelopeHeader.ts'
import { HeError } from '../errors/HeError.ts'
import { isHeErrorCode } from '../errors/heErrorCodes.ts'
import type { SearchCatalog } from '../search/SearchDatabase.ts'
import type {
  EvaluateCall,
  EvaluateCallResult,
  KeySetInfo,
  KeySetList,
  PutKeySetResult,
  SearchCallResult,
  ServerExecutorMode,
  ServerReadiness,
  ServerSearchConfig,
  ServerSession,
  ServerWork,
} from './clientTypes.ts'
import { SEARCH_CATALOG_MAX_PAGE, type SearchCatalogPage, SearchCatalogPageSchema } from './searchCatalogContract.ts'
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
}

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal
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

  constructor(options: SealboxClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '')
    this.token = options.token
    this.executor = options.executor
    const fetchImpl = options.fetch ?? globalThis.fetch
    if (typeof fetchImpl !== 'function') throw new HeError('INVALID_INPUT', 'no fetch implementation available')
    this.#fetch = fetchImpl.bind(globalThis)
    this.#catalogCache = options.catalogCache ?? new Map()
  }

  /** The same client with another token (or executor). */
  with(options: Partial<Omit<SealboxClientOptions, 'baseUrl'>>): SealboxClient {
    return new SealboxClient({
      baseUrl: this.baseUrl,
      fetch: this.#fetch,
      catalogCache: this.#catalogCache,
      ...(this.token === undefined ? {} : { token: this.token }),
      ...(this.executor === undefined ? {} : { executor: this.executor }),
      ...options,
    })
  }

  /** Local-mode servers: a new anonymous tenant; returns a client that uses its token. */
  async createSession(options: CallOptions = {}): Promise<{ session: ServerSession; client: SealboxClient }> {
    const session = await this.#json<ServerSession>('POST', '/api/v1/session', undefined, options)
    return { session, client: this.with({ token: session.token }) }
  }

  /** Liveness (answered by the server's event loop). */
  async health(options: CallOptions = {}): Promise<{ status: string }> {
    return this.#json('GET', '/healthz', undefined, options)
  }

  /** Readiness; resolves with `ready: false` (HTTP 503) while workers warm up. */
  async readiness(options: CallOptions = {}): Promise<ServerReadiness> {
    const { response } = await this.#send('GET', '/readyz', undefined, options)
    if (response.status !== 200 && response.status !== 503) throw await toError(response)
    return (await response.json()) as ServerReadiness
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
    return this.#json('GET', '/api/v1/search/config', undefined, options)
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
    const path = `/api/v1/search/catalog?offset=${offset}&limit=${SEARCH_CATALOG_MAX_PAGE}`
    const cached = this.#catalogCache.get(path)
    const { response } = await this.#send('GET', path, undefined, {
      ...options,
      ...(cached ? { headers: { 'if-none-match': cached.etag } } : {}),
    })
    if (response.status === 304 && cached) return cached.page
    const page = parseReply(SearchCatalogPageSchema, await expectOk(response).json(), 'search catalog')
    const etag = response.headers.get('etag')
    if (etag) this.#catalogCache.set(path, { etag, page })
    return page
  }

  /** Uploads (or replaces) evaluation keys: an envelope or a bundle of relin/Galois keys. */
  async putKeySet(id: string, keys: Uint8Array, options: CallOptions = {}): Promise<PutKeySetResult> {
    const raw = await this.#send('PUT', `/api/v1/keysets/${encodeURIComponent(id)}`, keys, options)
    const keySet = (await expectOk(raw.response).json()) as KeySetInfo
    return { keySet, replaced: raw.response.status === 200, ...work(raw) }
  }

  async listKeySets(options: CallOptions = {}): Promise<KeySetList> {
    return this.#json('GET', '/api/v1/keysets', undefined, options)
  }

  async getKeySet(id: string, options: CallOptions = {}): Promise<KeySetInfo> {
    return this.#json('GET', `/api/v1/keysets/${encodeURIComponent(id)}`, undefined, options)
  }

  async deleteKeySet(id: string, options: CallOptions = {}): Promise<void> {
    const { response } = await this.#send('DELETE', `/api/v1/keysets/${encodeURIComponent(id)}`, undefined, options)
    expectOk(response)
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
    const path =
      options.keySet === undefined ? '/api/v1/search' : `/api/v1/search?keySet=${encodeURIComponent(options.keySet)}`
    const raw = await this.#send('POST', path, concat(list), options)
    const body = new Uint8Array(await expectOk(raw.response).arrayBuffer())
    const queryMs = (raw.response.headers.get('x-sealbox-query-ms') ?? '')
      .split(',')
      .filter((part) => part !== '')
      .map(Number)
    return { responses: splitEnvelopes(body), queryMs, ...work(raw) }
  }

  /** Runs an HE program on the server (inputs and outputs are envelopes). */
  async evaluate(call: EvaluateCall, options: CallOptions = {}): Promise<EvaluateCallResult> {
    const inputs: Record<string, string> = {}
    for (const [name, bytes] of Object.entries(call.inputs)) inputs[name] = bytesToBase64(bytes)
    const body = {
      params: call.params,
      program: call.program,
      inputs,
      ...(call.keySet === undefined ? {} : { keySet: call.keySet }),
    }
    const raw = await this.#send('POST', '/api/v1/evaluate', body, options)
    const json = (await expectOk(raw.response).json()) as { outputs: Record<string, string>; steps?: unknown[] }
    const outputs: Record<string, Uint8Array> = {}
    for (const [name, text] of Object.entries(json.outputs)) outputs[name] = base64ToBytes(text)
    return { outputs, steps: json.steps ?? [], ...work(raw) }
  }

  async #json<T>(method: string, path: string, body: unknown, options: CallOptions): Promise<T> {
    const { response } = await this.#send(method, path, body, options)
    return (await expectOk(response).json()) as T
  }

  async #send(
    method: string,
    path: string,
    body: unknown,
    options: CallOptions & { headers?: Record<string, string> },
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
    if (!response.ok && response.status !== 304) throw await toError(response)
    return { response, elapsedMs: performance.now() - started }
  }
}

function work(raw: RawResponse): ServerWork {
  const executor = raw.response.headers.get('x-sealbox-executor')
  return {
    timing: parseServerTiming(raw.response.headers.get('server-timing')),
    executor: executor === 'pool' || executor === 'inline' || executor === 'process' ? executor : undefined,
    elapsedMs: raw.elapsedMs,
  }
}

/** A reply checked against its contract: a server that answers otherwise is a bug, said plainly. */
function parseReply<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new HeError(
      'INTERNAL',
      `the server's ${what} reply does not match the contract: ${issue?.path.join('.')} ${issue?.message}`,
      {
        cause: parsed.error,
      },
    )
  }
  return parsed.data
}

function expectOk(response: Response): Response {
  if (!response.ok) throw new HeError('INTERNAL', `unexpected HTTP ${response.status}`)
  return response
}

/** Turns an error response into an HeError carrying the server's code. */
async function toError(response: Response): Promise<HeError> {
  const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN)
  const details: Record<string, unknown> = {
    status: response.status,
    timing: parseServerTiming(response.headers.get('server-timing')),
    ...(Number.isFinite(retryAfter) ? { retryAfterSeconds: retryAfter } : {}),
  }
  let text = ''
  try {
    text = await response.text()
    const body = JSON.parse(text) as {
      error?: { code?: unknown; message?: unknown; hint?: unknown; details?: unknown }
    }
    const error = body.error
    if (error && isHeErrorCode(error.code) && typeof error.message === 'string') {
      return new HeError(error.code, error.message, {
        details: {
          ...details,
          ...(typeof error.hint === 'string' ? { hint: error.hint } : {}),
          ...(typeof error.details === 'object' && error.details !== null ? { server: error.details } : {}),
        },
      })
    }
  } catch {
    // Not our JSON (a proxy's page, a gateway timeout): fall through.
  }
  const code = response.status === 503 ? 'OVERLOADED' : response.status === 504 ? 'TIMEOUT' : 'INTERNAL'
  return new HeError(code, `HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`, { details })
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0))
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}

/** Splits envelopes written back to back (a multi-query search response). */
function splitEnvelopes(bytes: Uint8Array): Uint8Array[] {
  const parts: Uint8Array[] = []
  let offset = 0
  while (offset < bytes.length) {
    const rest = bytes.subarray(offset)
    const { byteLength } = peekEnvelope(rest)
    if (byteLength > rest.length) throw new HeError('INVALID_ENVELOPE', 'the search response is truncated')
    parts.push(rest.subarray(0, byteLength))
    offset += byteLength
  }
  return parts
}

import { concatBytes } from '../envelope/concatBytes.ts'
import { peekEnvelope } from '../envelope/readEnvelopeHeader.ts'
import { splitEnvelopes } from '../envelope/splitEnvelopes.ts'
import { HeError } from '../errors/HeError.ts'
import { isHeErrorCode } from '../errors/heErrorCodes.ts'
import { mergeSearchResponses } from '../search/searchWire.ts'
import type { CallOptions, RouteResult, SearchCallResult } from './clientTypes.ts'
import { SEALBOX_HEADERS } from './contract/httpContract.ts'
import type { SearchShardRoute, ServerSearchConfig, searchRoute } from './contract/searchContract.ts'
import type { SearchShardMap } from './contract/searchShardsContract.ts'

/** A sharded deployment as `searchConfig` found it: what `search` fans out to and merges with. */
export interface SearchShardLayout {
  configId: string
  fingerprint: string
  blockCount: number
  shards: SearchShardRoute[]
}

/** Calls one route at a shard's prefix (a client for `<baseUrl><prefix>`). */
export interface ShardCaller {
  config(prefix: string, options: CallOptions): Promise<ServerSearchConfig>
  search(
    prefix: string,
    body: Uint8Array,
    options: CallOptions & { keySet?: string; droppedBits?: boolean },
  ): Promise<RouteResult<typeof searchRoute>>
}

/** The error of one shard, coded as it was, naming the shard and the rows its absence leaves out. */
function shardError(
  shard: { index: number; rows?: { start: number; end: number } },
  count: number,
  error: unknown,
): HeError {
  const rows = shard.rows ? ` (rows ${shard.rows.start}–${shard.rows.end - 1})` : ''
  const cause = error instanceof HeError ? error : undefined
  const code = cause && isHeErrorCode(cause.code) ? cause.code : 'OVERLOADED'
  const message = error instanceof Error ? error.message : String(error)
  return new HeError(code, `shard ${shard.index} of ${count}${rows} did not answer: ${message}`, {
    cause: error,
    details: {
      ...cause?.details,
      shard: shard.index,
      shards: count,
      ...(shard.rows ? { missingRows: shard.rows } : {}),
    },
  })
}

/**
 * Every shard's config from a proxy's shard map, checked to be shards of one database
 * (one config id and fingerprint, the shard indices 0…S−1, their blocks contiguous and
 * covering all of it). Returns the whole database's config with `shards` listed, and the
 * layout `search` uses.
 */
export async function readShardedSearchConfig(
  map: SearchShardMap,
  caller: ShardCaller,
  options: CallOptions,
): Promise<{ config: ServerSearchConfig; layout: SearchShardLayout }> {
  const count = map.shards.length
  const configs = await Promise.all(
    map.shards.map((route) =>
      caller.config(route.prefix, options).catch((error: unknown) => {
        throw shardError(route, count, error)
      }),
    ),
  )
  const first = configs[0] as ServerSearchConfig
  const routes: SearchShardRoute[] = []
  let next = 0
  const ordered = map.shards.map((route, i) => ({ route, config: configs[i] as ServerSearchConfig }))
  ordered.sort((a, b) => a.route.index - b.route.index)
  for (const [i, { route, config }] of ordered.entries()) {
    const shard = config.shard
    const problem =
      route.index !== i
        ? `the proxy lists shard ${route.index} where shard ${i} belongs`
        : !shard
          ? `its node serves a whole database, not a shard`
          : shard.index !== i || shard.count !== count
            ? `its node serves shard ${shard.index}/${shard.count}, the proxy routes it as ${i}/${count}`
            : config.configId !== first.configId || config.fingerprint !== first.fingerprint
              ? `its database or search config (${config.configId}) differs from shard 0's (${first.configId})`
              : shard.blocks.start !== next
                ? `its blocks start at ${shard.blocks.start}, the shards before it end at ${next}`
                : undefined
    if (problem || !shard) {
      throw new HeError('CONFLICT', `shard ${route.index} at ${route.prefix}: ${problem}`, {
        details: { shard: route.index, prefix: route.prefix },
      })
    }
    next = shard.blocks.end
    routes.push({ ...shard, prefix: route.prefix })
  }
  if (next !== first.blocks.length) {
    throw new HeError('CONFLICT', `the shards hold blocks 0…${next - 1} of the database's ${first.blocks.length}`)
  }
  const { shard: _shard, ...whole } = first
  return {
    config: { ...whole, shards: routes },
    layout: {
      configId: first.configId,
      fingerprint: first.fingerprint,
      blockCount: first.blocks.length,
      shards: routes,
    },
  }
}

/**
 * One search sent to every shard at once (the same query bundles: each shard evaluates
 * its blocks), and each query's parts merged into one response bundle for the whole
 * database — what one node holding everything answers. A shard that fails (after the
 * client's retries) fails the call with its code, naming the shard and the rows missing;
 * the other shards' requests are cancelled. With `partial`, the shards that answered
 * answer, and `missingShards` flags the rest.
 */
export async function searchShards(
  layout: SearchShardLayout,
  caller: ShardCaller,
  queries: readonly Uint8Array[],
  options: CallOptions & { keySet?: string; partial?: boolean; droppedBits?: boolean },
): Promise<SearchCallResult & { shardMs: number[] }> {
  if (options.partial) return searchShardsPartially(layout, caller, queries, options)
  const body = concatBytes(queries)
  const cancel = new AbortController()
  const outer = options.signal
  const onAbort = () => cancel.abort(outer?.reason)
  outer?.addEventListener('abort', onAbort, { once: true })
  const count = layout.shards.length
  let replies: RouteResult<typeof searchRoute>[]
  try {
    replies = await Promise.all(
      layout.shards.map((shard) =>
        caller
          .search(shard.prefix, body, {
            signal: cancel.signal,
            ...(options.keySet === undefined ? {} : { keySet: options.keySet }),
            ...(options.droppedBits === false ? { droppedBits: false } : {}),
          })
          .catch((error: unknown) => {
            if (!cancel.signal.aborted) cancel.abort(error)
            throw shardError(shard, count, error)
          }),
      ),
    )
  } finally {
    outer?.removeEventListener('abort', onAbort)
  }
  return mergeShardReplies(layout, replies, queries, false)
}

/**
 * `searchShards` that answers with the shards that answered: each failed shard is listed
 * in `missingShards` (its rows, its error) and its blocks are left out of the responses,
 * which `rank(…, { partial: true })` ranks over the rows they hold. All shards failing
 * throws the first one's error.
 */
async function searchShardsPartially(
  layout: SearchShardLayout,
  caller: ShardCaller,
  queries: readonly Uint8Array[],
  options: CallOptions & { keySet?: string; droppedBits?: boolean },
): Promise<SearchCallResult & { shardMs: number[] }> {
  const body = concatBytes(queries)
  const count = layout.shards.length
  const settled = await Promise.allSettled(
    layout.shards.map((shard) =>
      caller.search(shard.prefix, body, {
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.keySet === undefined ? {} : { keySet: options.keySet }),
        ...(options.droppedBits === false ? { droppedBits: false } : {}),
      }),
    ),
  )
  const replies: RouteResult<typeof searchRoute>[] = []
  const missingShards: NonNullable<SearchCallResult['missingShards']> = []
  for (const [i, outcome] of settled.entries()) {
    const shard = layout.shards[i] as SearchShardRoute
    if (outcome.status === 'fulfilled') replies.push(outcome.value)
    else {
      const error = shardError(shard, count, outcome.reason)
      missingShards.push({ index: shard.index, rows: shard.rows, blocks: shard.blocks, error: error.toJSON() })
    }
  }
  if (replies.length === 0)
    throw shardError(layout.shards[0] as SearchShardRoute, count, (settled[0] as PromiseRejectedResult).reason)
  const merged = mergeShardReplies(layout, replies, queries, missingShards.length > 0)
  return missingShards.length > 0 ? { ...merged, missingShards } : merged
}

function mergeShardReplies(
  layout: SearchShardLayout,
  replies: readonly RouteResult<typeof searchRoute>[],
  queries: readonly Uint8Array[],
  partial: boolean,
): SearchCallResult & { shardMs: number[] } {
  const parts = replies.map((reply, i) => {
    const list = splitEnvelopes(reply.body, { what: 'response envelope' })
    if (list.length !== queries.length) {
      throw new HeError('INTERNAL', `shard ${i} answered ${list.length} responses to ${queries.length} queries`)
    }
    return list
  })
  const responses = queries.map((_, q) => {
    const pieces = parts.map((list) => list[q] as Uint8Array)
    const keySetId = peekEnvelope(pieces[0] as Uint8Array).keySetId
    if (keySetId === undefined) throw new HeError('INTERNAL', `shard 0's response to query ${q} names no key set`)
    return mergeSearchResponses(pieces, {
      fingerprint: layout.fingerprint,
      keySetId,
      configId: layout.configId,
      blockCount: layout.blockCount,
      ...(partial ? { partial: true } : {}),
    })
  })
  const queryMsOf = (reply: RouteResult<typeof searchRoute>) =>
    (reply.headers.get(SEALBOX_HEADERS.queryMs) ?? '')
      .split(',')
      .filter((part) => part !== '')
      .map(Number)
  const perShard = replies.map(queryMsOf)
  // The shards ran at once: a query took as long as its slowest shard.
  const queryMs = queries.map((_, q) => Math.max(...perShard.map((list) => list[q] ?? 0)))
  const slowest = replies.reduce((a, b) => (b.work.elapsedMs > a.work.elapsedMs ? b : a))
  return { responses, queryMs, ...slowest.work, shardMs: replies.map((reply) => reply.work.elapsedMs) }
}

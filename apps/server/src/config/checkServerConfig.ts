import type { z } from 'zod'
import type { ServerSettings } from './ServerSettings.ts'

/**
 * The rules between settings that no one setting's schema can state: every limit must leave
 * room for what another admits, or the node could never serve what it accepts.
 */
export function checkServerConfig(config: ServerSettings, ctx: z.RefinementCtx): void {
  // Each bound must admit the largest body a route accepts, or that body could never arrive.
  const largestBody = Math.max(config.MAX_KEYSET_BYTES, config.MAX_REQUEST_BYTES)
  for (const key of ['RECEIVING_BYTES', 'ADDRESS_RECEIVING_BYTES', 'TENANT_RECEIVING_BYTES'] as const) {
    if (config[key] < largestBody) {
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: `below the largest body a route accepts (${largestBody} bytes, MAX_KEYSET_BYTES / MAX_REQUEST_BYTES): such an upload could never be received`,
      })
    }
  }
  // Shards are contiguous row ranges; a cluster-private config reorders rows by cluster, and
  // its query selects one cluster of the whole database: the two do not compose (yet).
  if (config.SEARCH_SHARD !== undefined && config.SEARCH_CLUSTERS !== 0) {
    ctx.addIssue({
      code: 'custom',
      path: ['SEARCH_SHARD'],
      message:
        'cannot be combined with SEARCH_CLUSTERS (cluster-private search serves the whole database from one node): set SEARCH_CLUSTERS=0 to shard',
    })
  }
  if (config.MAX_PROGRAM_COST > config.TENANT_COST_BUDGET) {
    ctx.addIssue({
      code: 'custom',
      path: ['MAX_PROGRAM_COST'],
      message: `above TENANT_COST_BUDGET (${config.TENANT_COST_BUDGET}): a program at the limit could never run`,
    })
  }
  // A worker's heap holds its cached keys and never shrinks past a recycle: both must sit
  // below the cap, or the scheduler's budget (WORKER_HEAP_BYTES) could never be kept.
  // MAX_JOB_HEAP_BYTES may exceed it on purpose (such jobs run on a worker as it is and
  // may answer 507: the test that provokes a real out-of-memory does so).
  if (config.WORKER_HEAP_RECYCLE_BYTES >= config.WORKER_HEAP_BYTES) {
    ctx.addIssue({
      code: 'custom',
      path: ['WORKER_HEAP_RECYCLE_BYTES'],
      message: `not below WORKER_HEAP_BYTES (${config.WORKER_HEAP_BYTES}): a worker can never grow past its cap, so a grown one would never be replaced before it runs out of memory`,
    })
  }
  // The cached keys share the worker's heap with SEAL and the processed database, and a
  // worker above WORKER_HEAP_RECYCLE_BYTES is replaced: a cache as large as the threshold
  // makes every worker replace itself (losing its keys) each time its cache fills.
  // (Equal is warned about once the workers are warm, with the fresh heap measured: checkKeyCacheFits.)
  if (config.KEY_CACHE_BYTES > config.WORKER_HEAP_RECYCLE_BYTES) {
    ctx.addIssue({
      code: 'custom',
      path: ['KEY_CACHE_BYTES'],
      message: `above WORKER_HEAP_RECYCLE_BYTES (${config.WORKER_HEAP_RECYCLE_BYTES}): cached keys share the worker's heap with SEAL and the processed database, so a worker would be replaced (and lose its keys) whenever its cache fills; keep KEY_CACHE_BYTES + a fresh worker's heap (logged at start) below WORKER_HEAP_RECYCLE_BYTES`,
    })
  }
  if (config.KEY_CACHE_BYTES >= config.WORKER_HEAP_BYTES) {
    ctx.addIssue({
      code: 'custom',
      path: ['KEY_CACHE_BYTES'],
      message: `not below WORKER_HEAP_BYTES (${config.WORKER_HEAP_BYTES}): the cached keys live in the worker's heap, which would run out of memory before the cache evicts anything`,
    })
  }
  if (config.INLINE_MAX_JOB_MS > config.INLINE_BUDGET_MS) {
    ctx.addIssue({
      code: 'custom',
      path: ['INLINE_MAX_JOB_MS'],
      message: `above INLINE_BUDGET_MS (${config.INLINE_BUDGET_MS}): an inline job at the limit could never run`,
    })
  }
  if (config.MODE === 'production' && config.TOKENS.length === 0 && config.TOKENS_FILE === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['TOKENS'],
      message: 'production mode needs at least one tenant:token (TOKENS, or a TOKENS_FILE)',
    })
  }
  if (config.MODE === 'production' && config.FAULT_INJECTION) {
    ctx.addIssue({
      code: 'custom',
      path: ['FAULT_INJECTION'],
      message: 'fault injection is refused in production mode',
    })
  }
}

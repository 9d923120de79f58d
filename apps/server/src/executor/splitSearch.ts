import { HeError } from '@sealbox/he-core'
import { peekEnvelope } from '@sealbox/he-core/envelope'
import { mergeSearchResponses, type SearchBlockRange } from '@sealbox/he-core/search'
import type { SearchSummary } from '../app/SearchSummary.ts'
import type { HubResult } from './HubResult.ts'
import type { SearchJob, WorkerReply } from './jobMessages.ts'

type PhaseTimings = WorkerReply['timings']

/**
 * The block ranges one query is split into across a node's workers: as many parts as
 * there are workers, but none smaller than `minBlocks` blocks (a small query stays on one
 * worker: a part's fixed cost — loading the query and keys, a reply — buys nothing there).
 * One range (all blocks) means no split.
 */
export function searchParts(blocks: number, workers: number, minBlocks: number): SearchBlockRange[] {
  const parts = Math.max(1, Math.min(workers, Math.floor(blocks / minBlocks)))
  const ranges: SearchBlockRange[] = []
  for (let i = 0, start = 0; i < parts; i++) {
    const end = start + Math.floor(blocks / parts) + (i < blocks % parts ? 1 : 0)
    ranges.push({ start, end })
    start = end
  }
  return ranges
}

/** Per phase, the longest part: the parts ran at once, so the request waited for the slowest. */
function longestPhases(parts: readonly PhaseTimings[]): PhaseTimings {
  const out: Record<string, number> = {}
  for (const timings of parts) {
    for (const [phase, ms] of Object.entries(timings)) {
      if (typeof ms === 'number') out[phase] = Math.max(out[phase] ?? 0, ms)
    }
  }
  return out as PhaseTimings
}

/**
 * One result from the parts of a split search: each query's response bundles merged into
 * one (`mergeSearchResponses` verifies every block is there exactly once), per-query and
 * per-phase times of the slowest part, the longest queue wait, the sum of the parts' charges. The first failed part's
 * error fails the whole.
 */
export function mergeSearchParts(
  parts: readonly HubResult<SearchJob>[],
  search: Pick<SearchSummary, 'fingerprint' | 'configId'> & { blockCount: number; blocks?: SearchBlockRange },
): HubResult<SearchJob> {
  const failed = parts.find((part) => !part.outcome.ok)
  const first = parts[0] as HubResult<SearchJob>
  if (failed) return failed
  const results = parts.map((part) => (part.outcome.ok ? part.outcome.result : undefined))
  const queries = results[0]?.responses.length ?? 0
  const responses = Array.from({ length: queries }, (_, i) => {
    const pieces = results.map((result) => result?.responses[i] as Uint8Array)
    const keySetId = peekEnvelope(pieces[0] as Uint8Array).keySetId
    // Every query names its key set (the worker refuses one that does not), and so does its response.
    if (keySetId === undefined) throw new HeError('INTERNAL', `the response to query ${i} names no key set`)
    return mergeSearchResponses(pieces, {
      fingerprint: search.fingerprint,
      keySetId,
      configId: search.configId,
      blockCount: search.blockCount,
      ...(search.blocks ? { blocks: search.blocks } : {}),
    })
  })
  const queryMs = Array.from({ length: queries }, (_, i) =>
    Math.max(...results.map((result) => result?.queryMs[i] ?? 0)),
  )
  const result = { type: 'searchResult' as const, responses, queryMs }
  return {
    mode: first.mode,
    queueMs: Math.max(...parts.map((part) => part.queueMs)),
    // Each part was admitted and charged as its own job: the whole query cost their sum.
    chargedUnits: parts.reduce((sum, part) => sum + part.chargedUnits, 0),
    reply: { ...first.reply, result, timings: longestPhases(parts.map((part) => part.reply.timings)) },
    outcome: { ok: true, result },
  }
}

import type { BytesLike } from '../envelope/asPlainUint8Array.ts'
import type { HeError } from '../errors/HeError.ts'
import type { SearchEvaluation } from './SearchEvaluation.ts'
import type { SearchKeys } from './SearchKeys.ts'

/** One query of a batch and the keys of its user (null when the config needs no Galois keys). */
export interface SearchBatchItem {
  query: BytesLike
  keys: SearchKeys | null
}

/** A batch item's outcome: queries are independent, so one bad query fails alone. */
export type SearchBatchResult = { ok: true; evaluation: SearchEvaluation } | { ok: false; error: HeError }

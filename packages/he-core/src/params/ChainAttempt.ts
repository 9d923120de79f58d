import type { ParamsSuggestion } from './ParamsNeeds.ts'

/** A suggestion that meets the needs. */
export type ParamsSuccess = Extract<ParamsSuggestion, { ok: true }>

/** The smallest chain that fits at `n`, or why none does. */
export type ChainAttempt =
  | { fits: true; suggestion: ParamsSuccess }
  | { fits: false; why: 'prime'; n: number }
  | { fits: false; why: 'budget'; n: number; total: number; max: number }

/** Why no chain fits at one `n`. */
export type ChainFailure = Extract<ChainAttempt, { fits: false }>

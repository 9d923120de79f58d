/**
 * Milliseconds of one cost unit on this project's VM (a model, for estimates only).
 * Its own module so the search cost model (reached from the client entry) can price in
 * the same units without importing the program cost model and, through it, the op table.
 */
export const COST_UNIT_MS = 1

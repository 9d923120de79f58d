import { hasOperandB } from './pipeline.ts'
import type { WorkspaceState } from './workspaceState.ts'

/** Ops whose result stands for their operand: relinearized, rescaled or mod-switched, the same value. */
const REPLACES_OPERAND = new Set(['relinearize', 'rescaleToNext', 'modSwitchToNext', 'modSwitchToLast'])

/** A name readable by the next step and its kind. */
export interface Operand {
  name: string
  kind: 'plaintext' | 'ciphertext'
}

/**
 * The operands a new step of `op` starts with, chosen from `available` (what the step can
 * read, oldest first): the latest useful values. A value a later step relinearized,
 * rescaled or mod-switched is skipped (its result is the same value, ready to use: the
 * product before relinearization is not what a second multiply wants), and so is a
 * result whose step last failed. A binary op reads the newest value and the one before it
 * (x × y); a plaintext op the newest ciphertext and the newest plaintext.
 */
export function defaultOperands(
  state: Pick<WorkspaceState, 'pipeline'>,
  available: readonly Operand[],
  op: string,
): { a: string; b: string } {
  const replaced = new Set(state.pipeline.filter((entry) => REPLACES_OPERAND.has(entry.op)).map((entry) => entry.a))
  const failed = new Set(state.pipeline.filter((entry) => entry.last?.status === 'failed').map((entry) => entry.out))
  const ciphertexts = available.filter((v) => v.kind === 'ciphertext')
  const useful = ciphertexts.filter((v) => !replaced.has(v.name) && !failed.has(v.name))
  const pool = useful.length > 0 ? useful : ciphertexts
  const last = pool.at(-1)?.name ?? ''
  const plaintext = available.filter((v) => v.kind === 'plaintext').at(-1)?.name ?? ''
  if (op.endsWith('Plain')) return { a: last, b: plaintext }
  if (hasOperandB(op)) return { a: pool.at(-2)?.name ?? last, b: last }
  return { a: last, b: last }
}

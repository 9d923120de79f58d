import type { WorkspaceState } from './workspaceState.ts'

/** The secret key as the Keys panel names it ("secret key of key set 1a2b3c4d"). */
export function secretKeyName(state: WorkspaceState): string {
  return state.keys.keySetId ? `secret key of key set ${state.keys.keySetId.slice(0, 8)}` : 'secret key'
}

/** Whether replacing the workspace would lose something made here: keys, values or results. */
export function holdsWork(state: WorkspaceState): boolean {
  const { keys } = state
  return (
    keys.secretKey !== undefined ||
    keys.publicKey !== undefined ||
    keys.relinKeys !== undefined ||
    keys.galoisKeys !== undefined ||
    state.variables.length > 0
  )
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`
}

/**
 * What a replacement drops: `pipeline: false` when the steps stay (new parameters keep
 * them); `plaintexts: false` when plaintexts stay (a new secret key drops only ciphertexts).
 */
export interface LossOptions {
  pipeline?: boolean
  plaintexts?: boolean
}

/** How the label names the losses: "replaces" (default), "including", "discards"… */
export interface LabelOptions extends LossOptions {
  verb?: string
}

/**
 * What replacing the workspace would remove, in words, each with its names: "the secret
 * key of key set 1a2b3c4d", "1 other key", "2 ciphertexts (alpha, alpha2)", "1 plaintext
 * (w)", "a pipeline of 3 steps". Empty when nothing would be lost.
 */
export function workspaceLosses(state: WorkspaceState, options: LossOptions = {}): string[] {
  const lost: string[] = []
  if (state.keys.secretKey) lost.push(`the ${secretKeyName(state)}`)
  const others = (['publicKey', 'relinKeys', 'galoisKeys'] as const).filter((kind) => state.keys[kind])
  if (others.length > 0) lost.push(plural(others.length, state.keys.secretKey ? 'other key' : 'key'))
  const kinds = options.plaintexts === false ? (['ciphertext'] as const) : (['ciphertext', 'plaintext'] as const)
  for (const kind of kinds) {
    const names = state.variables.filter((v) => v.kind === kind).map((v) => v.name)
    if (names.length > 0) lost.push(`${plural(names.length, kind)} (${names.join(', ')})`)
  }
  if (options.pipeline !== false && state.pipeline.length > 0) {
    lost.push(`a pipeline of ${plural(state.pipeline.length, 'step')}`)
  }
  return lost
}

/** A list in prose: "a", "a and b", "a, b and c". */
export function inWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join('')
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`
}

/**
 * The label of the button that drops the work, naming what goes (the secret key first):
 * "Load the example (replaces the secret key of key set 1a2b3c4d, 1 other key and
 * 2 ciphertexts)". Counts without the names, so the label stays a button's length.
 */
export function replacingLabel(action: string, state: WorkspaceState, options: LabelOptions = {}): string {
  const counts = workspaceLosses(state, options).map((loss) => loss.replace(/ \([^)]*\)$/, ''))
  return counts.length === 0 ? action : `${action} (${options.verb ?? 'replaces'} ${inWords(counts)})`
}

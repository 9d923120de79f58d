import { HeError, type KeyKind } from '@sealbox/he-core'
import type { SealWorkerClient } from '../worker/SealWorkerClient.ts'
import { KEY_NOUNS } from '../workspace/keyNouns.ts'
import type { WorkspaceState } from '../workspace/workspaceState.ts'
import type { ExternalStore } from './ExternalStore.ts'

/**
 * What a restore needs of the sandbox (the `Sandbox` itself): declared here so the
 * sandbox can call the restore without the two modules importing each other.
 */
export interface RestoreTarget {
  readonly workspace: ExternalStore<WorkspaceState>
  readonly worker: SealWorkerClient
  noteHeap(heapBytes: number | undefined): void
}

/**
 * Rebuilds the worker's state from the workspace after a (re)start: the context
 * of the applied parameters, the secret key and evaluation keys, then every
 * variable, each from its envelope. The workspace is the durable truth; the worker
 * is a cache of live SEAL objects. What cannot be restored is removed and named.
 */
export async function restoreIntoWorker(sandbox: RestoreTarget): Promise<string[]> {
  const state = sandbox.workspace.state
  const { applied } = state
  if (!applied) return []
  const ready = await sandbox.worker.request({ type: 'setParams', params: applied.input })
  sandbox.noteHeap(ready.heapBytes)
  if (ready.fingerprint !== applied.fingerprint) {
    // The same spec now builds other parameters (e.g. a changed preset): nothing made
    // under the old fingerprint would load.
    sandbox.workspace.update((s) => ({
      ...s,
      applied: { ...applied, fingerprint: ready.fingerprint, plainModulus: ready.plainModulus },
      keys: {},
      variables: [],
    }))
    return ['keys and variables (the parameters changed meaning)']
  }
  const lost: string[] = []
  const lostKeys: KeyKind[] = []
  const { keys } = state
  if (keys.secretKey?.envelope) {
    await sandbox.worker.request({ type: 'loadKey', kind: 'secretKey', envelope: keys.secretKey.envelope })
    for (const kind of ['relinKeys', 'galoisKeys'] as const) {
      const entry = keys[kind]
      if (!entry) continue
      if (!entry.envelope) {
        lostKeys.push(kind)
        continue
      }
      try {
        await sandbox.worker.request({ type: 'loadKey', kind, envelope: entry.envelope })
      } catch (error) {
        if (HeError.is(error, 'CANCELLED')) throw error
        lostKeys.push(kind)
      }
    }
  } else if (keys.secretKey || keys.publicKey) {
    lostKeys.push('secretKey', 'publicKey', 'relinKeys', 'galoisKeys')
  }
  const lostVariables: string[] = []
  for (const variable of state.variables) {
    try {
      await sandbox.worker.request({ type: 'loadVariable', name: variable.name, envelope: variable.envelope })
    } catch (error) {
      if (HeError.is(error, 'CANCELLED')) throw error
      lostVariables.push(variable.name)
    }
  }
  if (lostKeys.length > 0 || lostVariables.length > 0) {
    sandbox.workspace.update((s) => dropLost(s, lostKeys, lostVariables))
    // Named as the Keys panel names them ("Galois keys"), never by their ids.
    for (const kind of lostKeys) if (keys[kind]) lost.push(KEY_NOUNS[kind])
    lost.push(...lostVariables)
  }
  return lost
}

function dropLost(state: WorkspaceState, kinds: KeyKind[], variables: string[]): WorkspaceState {
  const keys = { ...state.keys }
  for (const kind of kinds) delete keys[kind]
  const gone = new Set(variables)
  return { ...state, keys, variables: state.variables.filter((v) => !gone.has(v.name)) }
}

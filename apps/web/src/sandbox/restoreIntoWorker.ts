import type { Sandbox } from './Sandbox.ts'

/**
 * Rebuilds the worker's state from the workspace after a (re)start: the context
 * of the applied parameters, then every key and variable from its envelope. The
 * workspace is the durable truth; the worker is a cache of live SEAL objects.
 */
export async function restoreIntoWorker(sandbox: Sandbox): Promise<void> {
  const { applied } = sandbox.workspace.state
  if (!applied) return
  const ready = await sandbox.worker.request({ type: 'setParams', params: applied.input })
  sandbox.noteHeap(ready.heapBytes)
  if (ready.fingerprint !== applied.fingerprint) {
    // The same spec now builds other parameters (e.g. a changed preset): objects made
    // under the old fingerprint would not load, so start from the new context.
    sandbox.workspace.update((state) => ({
      ...state,
      applied: { ...applied, fingerprint: ready.fingerprint, plainModulus: ready.plainModulus },
      keys: {},
    }))
  }
}

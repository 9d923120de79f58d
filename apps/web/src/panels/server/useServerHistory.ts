import { useEffect } from 'react'
import { useSandbox } from '../../app/SandboxContext.tsx'
import { connectServer } from '../../sandbox/actions/serverActions.ts'
import type { Sandbox } from '../../sandbox/Sandbox.ts'
import { historyOf, loadServerHistory, saveServerHistory } from '../../workspace/serverHistory.ts'

/** Resolves once the worker has started (a connection lives in the worker). */
function workerReady(sandbox: Sandbox): Promise<boolean> {
  return new Promise((resolve) => {
    const check = () => {
      const { worker } = sandbox.activity.state
      if (worker !== 'ready' && worker !== 'failed') return
      unsubscribe()
      resolve(worker === 'ready')
    }
    const unsubscribe = sandbox.activity.subscribe(check)
    check()
  })
}

/**
 * Keeps the Server panel across reloads: restores the run history (IndexedDB) and,
 * when the page was connected, connects again to the workspace's server URL; from
 * then on every change of runs, searches or connection is saved.
 */
export function useServerHistory(): void {
  const sandbox = useSandbox()
  useEffect(() => {
    let active = true
    let unsubscribe: (() => void) | undefined
    void (async () => {
      const stored = await loadServerHistory().catch(() => undefined)
      if (!active) return
      if (stored && sandbox.server.state.runs.length === 0 && sandbox.server.state.searches.length === 0) {
        sandbox.server.update((view) => ({ ...view, runs: stored.runs, searches: stored.searches }))
      }
      // Until the reconnect is tried, the stored "connected" stands (the new worker has no session yet).
      let connectedFallback = stored?.connected === true
      const save = () => {
        const view = sandbox.server.state
        void saveServerHistory(historyOf(view, view.connection !== undefined || connectedFallback)).catch(() => {})
      }
      unsubscribe = sandbox.server.subscribe(save)
      if (stored?.connected && (await workerReady(sandbox)) && active && !sandbox.server.state.connection) {
        await connectServer(sandbox)
      }
      connectedFallback = false
      save()
    })()
    return () => {
      active = false
      unsubscribe?.()
    }
  }, [sandbox])
}

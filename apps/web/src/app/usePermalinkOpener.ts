import { HeError } from '@sealbox/he-core'
import { useEffect } from 'react'
import { buildWorkspace } from '../sandbox/actions/exampleActions.ts'
import type { Sandbox } from '../sandbox/Sandbox.ts'
import { decodePermalink, permalinkIn } from './permalink.ts'
import { useSandbox } from './SandboxContext.tsx'

/** One page load opens its link once (React's development double effects included). */
let opened = false

/** Resolves once the worker has started and restored the saved workspace (or failed to). */
function workerSettled(sandbox: Sandbox): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      const { worker } = sandbox.activity.state
      if (worker !== 'ready' && worker !== 'failed') return
      unsubscribe()
      resolve()
    }
    const unsubscribe = sandbox.activity.subscribe(check)
    check()
  })
}

function notice(sandbox: Sandbox, tone: 'info' | 'error', text: string): void {
  sandbox.activity.update((activity) => ({ ...activity, notice: { tone, text } }))
}

/**
 * Opens a permalink (`#panel&w=…`): decodes and validates the workspace, then rebuilds
 * it here — parameters, fresh keys, variables — and runs the pipeline. The `w=` part
 * leaves the address bar at once, so a reload keeps the (saved) workspace instead of
 * rebuilding it again.
 */
export function usePermalinkOpener(): void {
  const sandbox = useSandbox()
  useEffect(() => {
    const encoded = permalinkIn(window.location.hash)
    if (encoded === undefined || opened) return
    opened = true
    const panel = window.location.hash.replace(/^#\/?/, '').split('&')[0] || 'functions'
    window.history.replaceState(null, '', `#${panel}`)
    void (async () => {
      await workerSettled(sandbox)
      try {
        const spec = await decodePermalink(encoded)
        const outcome = await buildWorkspace(sandbox, spec)
        if (outcome.ok) {
          notice(sandbox, 'info', 'Opened a shared workspace: its keys were made fresh in this browser and it ran.')
        } else if (outcome.error.code !== 'CANCELLED') {
          notice(sandbox, 'error', `The shared workspace could not be rebuilt: ${outcome.error.message}`)
        }
      } catch (error) {
        notice(sandbox, 'error', error instanceof HeError ? error.message : String(error))
      }
    })()
  }, [sandbox])
}

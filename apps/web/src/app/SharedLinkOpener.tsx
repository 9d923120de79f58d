import { HeError, type WorkspaceInput } from '@sealbox/he-core'
import { useEffect, useRef, useState } from 'react'
import { buildWorkspace } from '../sandbox/actions/exampleActions.ts'
import type { Sandbox } from '../sandbox/Sandbox.ts'
import { ConfirmNotice } from '../ui/ConfirmNotice.tsx'
import { WORKSPACE_PARAM } from '../workspace/workspaceDb.ts'
import { holdsWork, replacingLabel } from '../workspace/workspaceLosses.ts'
import { LossWarning, SecretKeyDownloadButton } from './LossWarning.tsx'
import { decodePermalink, isContextLink, permalinkIn } from './permalink.ts'
import { useSandbox, useWorkspace } from './SandboxContext.tsx'

/** A shared link waiting for the user's choice: the workspace it holds and where it opens. */
interface PendingLink {
  spec: WorkspaceInput
  encoded: string
  panel: string
}

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

/** The address that opens `link` in a workspace of its own (a fresh IndexedDB record). */
function newWorkspaceUrl(link: PendingLink): string {
  const url = new URL(window.location.href)
  url.searchParams.set(WORKSPACE_PARAM, crypto.randomUUID())
  url.hash = `${link.panel}&w=${link.encoded}`
  return url.toString()
}

/**
 * Opens shared links (`#panel&w=…`) when the page loads with one and whenever one is
 * pasted into the address bar (`hashchange`). The `w=` part leaves the address bar at
 * once, so a reload keeps the saved workspace. A workspace that holds keys or results
 * is never replaced silently: the user opens the link here (the button names the
 * secret key it drops, with a download offered first), in a new workspace (a new tab
 * with its own storage), or cancels.
 */
export function SharedLinkOpener() {
  const sandbox = useSandbox()
  // The prompt names what the workspace holds now (a restore or a job may still change it).
  const state = useWorkspace()
  const [pending, setPending] = useState<PendingLink>()
  const dialog = useRef<HTMLDivElement>(null)

  useEffect(() => {
    const take = async () => {
      const encoded = permalinkIn(window.location.hash)
      if (encoded === undefined) return
      const panel = window.location.hash.replace(/^#\/?/, '').split('&')[0] || 'functions'
      window.history.replaceState(null, '', `#${panel}`)
      await workerSettled(sandbox)
      let spec: WorkspaceInput
      try {
        spec = await decodePermalink(encoded)
      } catch (error) {
        notice(sandbox, 'error', error instanceof HeError ? error.message : String(error))
        return
      }
      const link = { spec, encoded, panel }
      if (holdsWork(sandbox.workspace.state)) {
        setPending(link)
      } else {
        await openHere(sandbox, link)
      }
    }
    const onHashChange = () => void take()
    window.addEventListener('hashchange', onHashChange)
    void take()
    return () => window.removeEventListener('hashchange', onHashChange)
  }, [sandbox])

  useEffect(() => {
    if (pending) dialog.current?.focus()
  }, [pending])

  if (!pending) return null
  return (
    <div className="shared-link-prompt" ref={dialog} tabIndex={-1} data-testid="shared-link-prompt">
      <ConfirmNotice
        label="Open the shared workspace?"
        title="This link holds another workspace."
        before={<SecretKeyDownloadButton />}
        choices={[
          {
            label: replacingLabel('Open the link here', state),
            tone: 'danger' as const,
            onChoose: () => {
              setPending(undefined)
              void openHere(sandbox, pending)
            },
          },
          {
            label: 'Open in a new workspace',
            tone: 'primary' as const,
            onChoose: () => {
              setPending(undefined)
              window.open(newWorkspaceUrl(pending), '_blank', 'noopener')
            },
          },
          { label: 'Cancel', onChoose: () => setPending(undefined) },
        ]}
      >
        <LossWarning lead="Opening it here replaces this workspace" testId="shared-link-loss" />
        <p>A new workspace opens the link in a new tab with storage of its own, and keeps this one as it is.</p>
      </ConfirmNotice>
    </div>
  )
}

/** Rebuilds the link's workspace here (fresh keys) and runs it. */
async function openHere(sandbox: Sandbox, link: PendingLink): Promise<void> {
  const outcome = await buildWorkspace(sandbox, link.spec)
  if (outcome.ok) {
    notice(
      sandbox,
      'info',
      isContextLink(link.spec)
        ? 'Opened a shared workspace: its parameters, with keys made fresh in this browser (it holds no values yet).'
        : 'Opened a shared workspace: its keys were made fresh in this browser and it ran.',
    )
  } else if (outcome.error.code !== 'CANCELLED') {
    notice(sandbox, 'error', `The shared workspace could not be rebuilt: ${outcome.error.message}`)
  }
}

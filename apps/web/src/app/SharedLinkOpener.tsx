import { HeError, type WorkspaceInput } from '@sealbox/he-core'
import { useEffect, useRef, useState } from 'react'
import { buildWorkspace } from '../sandbox/actions/exampleActions.ts'
import { downloadKey } from '../sandbox/actions/keyActions.ts'
import type { Sandbox } from '../sandbox/Sandbox.ts'
import { ConfirmNotice } from '../ui/ConfirmNotice.tsx'
import { WORKSPACE_PARAM } from '../workspace/workspaceDb.ts'
import type { WorkspaceState } from '../workspace/workspaceState.ts'
import { decodePermalink, isContextLink, permalinkIn } from './permalink.ts'
import { useSandbox } from './SandboxContext.tsx'

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

/** Whether replacing the workspace would lose something made here: keys, values or results. */
function holdsWork(state: WorkspaceState): boolean {
  return state.keys.secretKey !== undefined || state.variables.length > 0
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`
}

/** The secret key as the Keys panel names it. */
export function secretKeyName(state: WorkspaceState): string {
  return state.keys.keySetId ? `secret key of key set ${state.keys.keySetId.slice(0, 8)}` : 'secret key'
}

/** What opening a link here would remove, in words. */
function losses(state: WorkspaceState): string[] {
  const lost: string[] = []
  if (state.keys.secretKey) lost.push(`the ${secretKeyName(state)}`)
  const others = (['publicKey', 'relinKeys', 'galoisKeys'] as const).filter((kind) => state.keys[kind])
  if (others.length > 0) lost.push(plural(others.length, 'other key'))
  const ciphertexts = state.variables.filter((v) => v.kind === 'ciphertext')
  const plaintexts = state.variables.filter((v) => v.kind === 'plaintext')
  if (ciphertexts.length > 0)
    lost.push(`${plural(ciphertexts.length, 'ciphertext')} (${ciphertexts.map((v) => v.name).join(', ')})`)
  if (plaintexts.length > 0)
    lost.push(`${plural(plaintexts.length, 'plaintext')} (${plaintexts.map((v) => v.name).join(', ')})`)
  if (state.pipeline.length > 0) lost.push(`a pipeline of ${plural(state.pipeline.length, 'step')}`)
  return lost
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
  const [pending, setPending] = useState<PendingLink>()
  const [downloaded, setDownloaded] = useState(false)
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
        setDownloaded(false)
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
  const state = sandbox.workspace.state
  const secret = state.keys.secretKey ? secretKeyName(state) : undefined
  const lost = losses(state)
  return (
    <div className="shared-link-prompt" ref={dialog} tabIndex={-1} data-testid="shared-link-prompt">
      <ConfirmNotice
        label="Open the shared workspace?"
        title="This link holds another workspace."
        choices={[
          ...(secret
            ? [
                {
                  label: downloaded ? 'Secret key downloaded' : 'Download the secret key first',
                  onChoose: () => {
                    void downloadKey(sandbox, 'secretKey').then((outcome) => setDownloaded(outcome.ok))
                  },
                },
              ]
            : []),
          {
            label: secret
              ? `Open the link (replaces this workspace and its ${secret})`
              : 'Open the link (replaces this workspace)',
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
        <p data-testid="shared-link-loss">
          Opening it here replaces this workspace: {lost.join(', ')}.
          {secret
            ? ' Whatever was encrypted under this secret key can no longer be decrypted, here or anywhere, unless you download the key first.'
            : ''}{' '}
          A new workspace opens the link in a new tab with storage of its own, and keeps this one as it is.
        </p>
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

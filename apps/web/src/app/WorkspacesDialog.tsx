import { HeError } from '@sealbox/he-core'
import { useRef, useState } from 'react'
import { ErrorNotice } from '../ui/ErrorNotice.tsx'
import { pageWorkspaceId } from '../workspace/workspaceDb.ts'
import {
  defaultWorkspaceName,
  deleteWorkspace,
  listWorkspaces,
  MAX_WORKSPACE_NAME,
  renameWorkspace,
  type WorkspaceListing,
  workspaceUrl,
} from '../workspace/workspaceDirectory.ts'
import { useSandbox } from './SandboxContext.tsx'

/**
 * The header's Workspaces button and dialog: every workspace saved in this browser (the
 * usual one and each opened "in a new workspace"), named, with what it holds; this one
 * renamed in place, another reopened or deleted (after a confirmation naming it), and a
 * new empty one started. Each lives at its own address, so reopening is navigating there.
 */
export function WorkspacesDialog() {
  const sandbox = useSandbox()
  const dialog = useRef<HTMLDialogElement>(null)
  const here = pageWorkspaceId()
  const [listing, setListing] = useState<WorkspaceListing[]>()
  const [name, setName] = useState('')
  const [deleting, setDeleting] = useState<WorkspaceListing>()
  const [error, setError] = useState<HeError>()

  const refresh = async () => {
    try {
      const found = await listWorkspaces()
      // This page's workspace is listed even before its first save.
      const all = found.some((w) => w.id === here)
      const withHere = all
        ? found
        : [{ id: here, name: defaultWorkspaceName(here), summary: 'nothing saved yet' }, ...found]
      setListing(withHere)
      setName(withHere.find((w) => w.id === here)?.name ?? defaultWorkspaceName(here))
    } catch (cause) {
      setError(new HeError('INTERNAL', `Browser storage could not be read: ${String(cause)}`, { cause }))
    }
  }
  const go = async (id: string | undefined) => {
    // Leaving this page: what is pending is written first.
    await sandbox.flush()
    window.location.assign(workspaceUrl(id))
  }

  return (
    <>
      <button
        type="button"
        className="button-header"
        onClick={() => {
          setDeleting(undefined)
          setError(undefined)
          void refresh()
          dialog.current?.showModal()
        }}
      >
        Workspaces
      </button>
      <dialog ref={dialog} className="dialog dialog-wide" aria-labelledby="workspaces-title">
        <h2 id="workspaces-title">Workspaces in this browser</h2>
        <form
          className="field"
          onSubmit={async (event) => {
            event.preventDefault()
            await renameWorkspace(here, name)
            await refresh()
          }}
        >
          <label className="field-label" htmlFor="workspace-name">
            Name of this workspace
          </label>
          <div className="actions">
            <input
              id="workspace-name"
              value={name}
              maxLength={MAX_WORKSPACE_NAME}
              onChange={(event) => setName(event.target.value)}
            />
            <button type="submit">Rename</button>
          </div>
        </form>
        <ul className="workspace-list" data-testid="workspace-list">
          {(listing ?? []).map((workspace) => {
            const open = workspace.id === here
            return (
              <li key={workspace.id ?? ''} data-testid="workspace-item">
                <div className="workspace-item-text">
                  <strong>{workspace.name}</strong>
                  {open ? <span className="badge badge-accent">open here</span> : null}
                  <span className="muted">{workspace.summary}</span>
                </div>
                {open ? null : (
                  <div className="actions">
                    <button type="button" className="button-small" onClick={() => void go(workspace.id)}>
                      Open {workspace.name}
                    </button>
                    <button type="button" className="button-small" onClick={() => setDeleting(workspace)}>
                      Delete {workspace.name}
                    </button>
                  </div>
                )}
              </li>
            )
          })}
        </ul>
        {deleting ? (
          <section
            className="notice notice-warning"
            aria-label={`Delete ${deleting.name}?`}
            data-testid="workspace-delete"
          >
            <div className="notice-body">
              <p>
                <strong>Delete {deleting.name}?</strong> Its parameters, keys (its secret key too), variables and
                pipeline are removed from this browser. Open it and export it first to keep them.
              </p>
              <div className="actions">
                <button
                  type="button"
                  className="button-danger"
                  onClick={async () => {
                    await deleteWorkspace(deleting.id)
                    setDeleting(undefined)
                    await refresh()
                  }}
                >
                  Delete it for good
                </button>
                <button type="button" onClick={() => setDeleting(undefined)}>
                  Keep it
                </button>
              </div>
            </div>
          </section>
        ) : null}
        {error ? <ErrorNotice error={error} onDismiss={() => setError(undefined)} /> : null}
        <div className="actions">
          <button type="button" className="button-primary" onClick={() => void go(crypto.randomUUID())}>
            New empty workspace
          </button>
          <button type="button" onClick={() => dialog.current?.close()}>
            Close the list
          </button>
        </div>
      </dialog>
    </>
  )
}

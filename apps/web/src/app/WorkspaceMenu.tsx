import type { HeError } from '@sealbox/he-core'
import { useEffect, useRef, useState } from 'react'
import { EXAMPLE_BLURBS, type ExampleName, loadExample } from '../sandbox/actions/exampleActions.ts'
import { exportWorkspace, importWorkspace, resetWorkspace } from '../sandbox/actions/workspaceActions.ts'
import { ErrorNotice } from '../ui/ErrorNotice.tsx'
import { FileButton } from '../ui/FileButton.tsx'
import { holdsWork, replacingLabel } from '../workspace/workspaceLosses.ts'
import { CopyLinkButton } from './CopyLinkButton.tsx'
import { LossWarning, SecretKeyDownloadButton } from './LossWarning.tsx'
import { useActivity, useSandbox, useWorkspace } from './SandboxContext.tsx'

/** Workspace-wide actions in the header: examples, export to one file, a link, import one, start over. */
export function WorkspaceMenu() {
  const sandbox = useSandbox()
  const state = useWorkspace()
  const { keys } = state
  const { job } = useActivity()
  const exportDialog = useRef<HTMLDialogElement>(null)
  const resetDialog = useRef<HTMLDialogElement>(null)
  const examplesDialog = useRef<HTMLDialogElement>(null)
  const [includeSecret, setIncludeSecret] = useState(false)
  const [error, setError] = useState<HeError>()
  const [importFailed, setImportFailed] = useState(false)
  // An example chosen over a workspace that holds keys or values: loaded only once confirmed.
  const [confirmExample, setConfirmExample] = useState<ExampleName>()
  const busy = job !== undefined
  const exampleConfirm = useRef<HTMLElement>(null)
  useEffect(() => {
    if (confirmExample) exampleConfirm.current?.focus()
  }, [confirmExample])

  const load = async (name: ExampleName) => {
    examplesDialog.current?.close()
    setConfirmExample(undefined)
    setError(undefined)
    // An example is a pipeline to watch: it opens where its steps run, not on Parameters.
    window.location.hash = 'functions'
    const outcome = await loadExample(sandbox, name)
    setImportFailed(false)
    if (!outcome.ok) setError(outcome.error)
  }

  return (
    <div className="workspace-menu">
      <button
        type="button"
        className="button-header"
        disabled={busy}
        onClick={() => {
          setConfirmExample(undefined)
          examplesDialog.current?.showModal()
        }}
      >
        Examples
      </button>
      <button type="button" className="button-header" onClick={() => exportDialog.current?.showModal()}>
        Export workspace
      </button>
      <CopyLinkButton />
      <FileButton
        label="Import…"
        className="button-header"
        accept=".json,application/json"
        testId="import-workspace"
        disabled={busy}
        onFile={async (file) => {
          setError(undefined)
          const outcome = await importWorkspace(sandbox, file)
          setImportFailed(!outcome.ok)
          if (!outcome.ok) setError(outcome.error)
        }}
      />
      <button type="button" className="button-header" disabled={busy} onClick={() => resetDialog.current?.showModal()}>
        Start over
      </button>

      <dialog ref={exportDialog} className="dialog" aria-labelledby="export-title">
        <form
          method="dialog"
          onSubmit={() => {
            exportWorkspace(sandbox, { includeSecretKey: includeSecret })
          }}
        >
          <h2 id="export-title">Export the workspace</h2>
          <p>
            One file with the parameters, keys, variables (as sealbox envelopes) and the pipeline. Import it here or in
            another browser to continue.
          </p>
          <label className="checkbox-label">
            <input
              type="checkbox"
              checked={includeSecret}
              disabled={!keys.secretKey}
              onChange={(event) => setIncludeSecret(event.target.checked)}
            />
            Include the secret key
          </label>
          <p className="field-help checkbox-help">
            {includeSecret
              ? 'Anyone with this file can decrypt your ciphertexts. Keep it private.'
              : 'Without it the file is safe to share: ciphertexts stay encrypted, and the numbers you typed for them and their decrypted previews are left out.'}
          </p>
          <div className="actions">
            <button type="submit" className="button-primary">
              Download
            </button>
            <button type="button" onClick={() => exportDialog.current?.close()}>
              Cancel
            </button>
          </div>
        </form>
      </dialog>

      <dialog ref={resetDialog} className="dialog" aria-labelledby="reset-title">
        <form
          method="dialog"
          onSubmit={() => {
            void resetWorkspace(sandbox)
          }}
        >
          <h2 id="reset-title">Start over?</h2>
          <p>This removes the parameters, keys, variables and pipeline from this browser. Export first to keep them.</p>
          <LossWarning lead="Starting over removes" testId="reset-loss" />
          <div className="actions">
            <SecretKeyDownloadButton />
            <button type="submit" className="button-danger">
              {replacingLabel('Remove everything', state, { verb: 'including' })}
            </button>
            <button type="button" onClick={() => resetDialog.current?.close()}>
              Keep working
            </button>
          </div>
        </form>
      </dialog>
      <dialog ref={examplesDialog} className="dialog" aria-labelledby="examples-title">
        <h2 id="examples-title">Start from an example</h2>
        <p>
          Loads a complete workspace — parameters, the keys its pipeline needs, variables and a multi-step pipeline —
          and runs it. It replaces the current workspace (export it first to keep it).
        </p>
        {confirmExample ? (
          <section
            ref={exampleConfirm}
            tabIndex={-1}
            className="example-confirm"
            aria-label="Replace this workspace?"
            data-testid="example-confirm"
          >
            <LossWarning lead={`Loading “${EXAMPLE_BLURBS[confirmExample].title}” replaces this workspace`} />
            <div className="actions">
              <SecretKeyDownloadButton />
              <button type="button" className="button-danger" onClick={() => void load(confirmExample)}>
                {replacingLabel('Load the example', state)}
              </button>
              <button type="button" onClick={() => setConfirmExample(undefined)}>
                Keep this workspace
              </button>
            </div>
          </section>
        ) : null}
        <ul className="example-list">
          {(Object.keys(EXAMPLE_BLURBS) as ExampleName[]).map((name) => (
            <li key={name}>
              <div>
                <strong>{EXAMPLE_BLURBS[name].title}</strong>
                <p className="field-help">{EXAMPLE_BLURBS[name].text}</p>
              </div>
              <button
                type="button"
                className="button-small"
                onClick={() => {
                  // Keys or values here are never replaced without a confirmation that names them.
                  if (holdsWork(sandbox.workspace.state)) setConfirmExample(name)
                  else void load(name)
                }}
                aria-label={`Load the ${EXAMPLE_BLURBS[name].title} example`}
              >
                Load
              </button>
            </li>
          ))}
        </ul>
        <div className="actions">
          <button type="button" onClick={() => examplesDialog.current?.close()}>
            Close
          </button>
        </div>
      </dialog>
      {error ? (
        <div className="header-error">
          {importFailed ? (
            <ErrorNotice
              error={error}
              title="Could not import the workspace"
              hint="Choose a .json file made by Export workspace in this sandbox. Nothing was changed."
              onDismiss={() => setError(undefined)}
            />
          ) : (
            <ErrorNotice error={error} title="That did not work" onDismiss={() => setError(undefined)} />
          )}
        </div>
      ) : null}
    </div>
  )
}

import { useEffect, useRef, useState } from 'react'
import { formWords } from '../ui/formWords.ts'
import { linkSpecOf } from '../workspace/workspaceSpecOf.ts'
import { encodePermalink, permalinkUrl } from './permalink.ts'
import { useWorkspace } from './SandboxContext.tsx'

type LinkState = { url: string; copied: boolean; contextOnly: boolean } | { problem: string }

/**
 * "Copy link": the workspace (parameters, typed numbers, pipeline — never keys or the
 * secret key) as a permalink, copied to the clipboard and shown to copy by hand.
 */
export function CopyLinkButton() {
  const state = useWorkspace()
  const dialog = useRef<HTMLDialogElement>(null)
  const [link, setLink] = useState<LinkState>()

  const make = async () => {
    const outcome = linkSpecOf(state)
    if (!outcome.spec) {
      setLink({ problem: formWords(outcome.problem ?? 'Create the context on the Parameters panel first.') })
    } else {
      const panel = window.location.hash.replace(/^#\/?/, '').split('&')[0] || 'functions'
      const url = permalinkUrl(panel, await encodePermalink(outcome.spec))
      // The clipboard needs permission in some browsers; the link is shown either way.
      const copied = await navigator.clipboard?.writeText(url).then(
        () => true,
        () => false,
      )
      setLink({ url, copied: copied === true, contextOnly: outcome.spec.print?.length === 0 })
    }
  }

  // Opened once React has rendered the new link into it: opened in `make`, the dialog
  // showed its previous (or no) content for a frame.
  useEffect(() => {
    if (link && !dialog.current?.open) dialog.current?.showModal()
  }, [link])

  return (
    <>
      <button type="button" className="button-header" onClick={() => void make()}>
        Copy link
      </button>
      <dialog ref={dialog} className="dialog" aria-labelledby="link-title">
        <h2 id="link-title">Link to this workspace</h2>
        {link && 'url' in link ? (
          <>
            <p>
              {link.copied ? 'Copied to the clipboard. ' : ''}
              {link.contextOnly
                ? 'It holds the parameters and which evaluation keys to make (no values or steps yet) — never keys or the secret key. Opening it builds the context and makes fresh keys.'
                : 'It holds the parameters, the numbers you typed and the pipeline — never keys or the secret key. Opening it makes fresh keys and runs the pipeline.'}
            </p>
            <label className="visually-hidden" htmlFor="permalink">
              Workspace link
            </label>
            <input
              id="permalink"
              className="mono permalink-input"
              readOnly
              value={link.url}
              onFocus={(event) => event.target.select()}
            />
            {state.variables.some((v) => v.origin === 'upload') ? (
              <p className="field-help">Uploaded values are left out: their numbers are not known here.</p>
            ) : null}
          </>
        ) : (
          <p className="field-error">{link?.problem}</p>
        )}
        <div className="actions">
          <button type="button" onClick={() => dialog.current?.close()}>
            Close
          </button>
        </div>
      </dialog>
    </>
  )
}

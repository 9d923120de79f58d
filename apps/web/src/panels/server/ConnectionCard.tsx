import type { HeError } from '@sealbox/he-core'
import { useState } from 'react'
import { useActivity, useSandbox, useServerView, useWorkspace } from '../../app/SandboxContext.tsx'
import { connectServer } from '../../sandbox/actions/serverActions.ts'
import { ErrorNotice } from '../../ui/ErrorNotice.tsx'

/** Which server, and whether it is ready: URL (same origin by default), tenant, executors. */
export function ConnectionCard() {
  const sandbox = useSandbox()
  const { server } = useWorkspace()
  const { connection } = useServerView()
  const { job } = useActivity()
  const [error, setError] = useState<HeError>()

  const connect = async () => {
    setError(undefined)
    const outcome = await connectServer(sandbox)
    if (!outcome.ok) setError(outcome.error)
  }

  return (
    <form
      className="card"
      aria-label="Server connection"
      onSubmit={(event) => {
        event.preventDefault()
        void connect()
      }}
    >
      <h2>Connection</h2>
      <div className="field-row">
        <div className="field grow">
          <label className="field-label" htmlFor="server-url">
            Server URL
          </label>
          <input
            id="server-url"
            className="mono"
            placeholder={`${window.location.origin} (this page's server)`}
            value={server.baseUrl}
            spellCheck={false}
            onChange={(event) =>
              sandbox.workspace.update((s) => ({ ...s, server: { ...s.server, baseUrl: event.target.value } }))
            }
          />
        </div>
        <div className="field">
          <button type="submit" className="button-primary" disabled={job !== undefined}>
            {connection ? 'Reconnect' : 'Connect'}
          </button>
        </div>
      </div>
      {connection ? (
        <div className="connection" data-testid="server-connection">
          <p>
            <span className={`dot ${connection.ready ? 'dot-ok' : 'dot-bad'}`} aria-hidden="true" />
            {connection.ready ? 'Ready' : 'Warming up'} · {connection.mode} mode · tenant{' '}
            <code>{connection.tenant}</code> · <a href={`${connection.baseUrl}/docs`}>API docs</a>
          </p>
          <p className="muted">
            Executors:{' '}
            {connection.executors
              .map((e) => `${e.mode}${e.default ? ' (default)' : ''}: ${e.warm}/${e.size} warm`)
              .join(' · ')}
          </p>
        </div>
      ) : (
        <p className="field-help">
          The server computes on ciphertexts it cannot read. Only evaluation keys and ciphertexts are sent; the secret
          key stays here.
        </p>
      )}
      {error ? (
        <ErrorNotice
          error={error}
          title={`Could not connect to ${server.baseUrl.trim() || "this page's server"}`}
          hint={
            error.details?.network === true
              ? 'Nothing answered at that address: check the URL and that the server is running (a server on another origin must allow this page with CORS).'
              : undefined
          }
          onDismiss={() => setError(undefined)}
        />
      ) : null}
    </form>
  )
}

import type { HeError } from '@sealbox/he-core'
import { useMemo, useState } from 'react'
import { useActivity, useSandbox, useServerView, useWorkspace } from '../../app/SandboxContext.tsx'
import { runPipelineOnServer, uploadEvaluationKeys } from '../../sandbox/actions/serverActions.ts'
import type { RemoteRun } from '../../sandbox/serverView.ts'
import { ErrorNotice } from '../../ui/ErrorNotice.tsx'
import { formatBytes, formatMs } from '../../ui/format.ts'
import { Segmented } from '../../ui/Segmented.tsx'
import type { ExecutorChoice } from '../../worker/serverProtocol.ts'
import { formatValue } from '../../workspace/parseValues.ts'
import { checkPipeline } from '../../workspace/pipeline.ts'
import type { VariableEntry } from '../../workspace/workspaceState.ts'
import { Preview } from '../variables/ValueFacts.tsx'
import { TimingBreakdown } from './TimingBreakdown.tsx'

export const EXECUTOR_OPTIONS: ReadonlyArray<{ value: ExecutorChoice; label: string }> = [
  { value: 'default', label: 'Server default' },
  { value: 'pool', label: 'Pool (worker threads)' },
  { value: 'inline', label: 'Inline (event loop)' },
  { value: 'process', label: 'Process (child processes)' },
]

/** Same values, allowing CKKS's approximation (relative 1e-3 of the largest magnitude). */
function sameValues(a: ReadonlyArray<bigint | number>, b: ReadonlyArray<bigint | number>): boolean {
  if (a.length !== b.length) return false
  const nums = [...a, ...b].map(Number)
  const tolerance = 1e-3 * Math.max(1, ...nums.map(Math.abs))
  return a.every((value, i) => {
    const other = b[i] as bigint | number
    return typeof value === 'bigint' && typeof other === 'bigint'
      ? value === other
      : Math.abs(Number(value) - Number(other)) <= tolerance
  })
}

/** Runs the pipeline on the server, in the executor chosen, and compares it with the local run. */
export function RemotePipelineCard() {
  const sandbox = useSandbox()
  const state = useWorkspace()
  const { connection, runs, uploaded } = useServerView()
  const { job } = useActivity()
  const [executor, setExecutor] = useState<ExecutorChoice>('default')
  const [error, setError] = useState<HeError>()
  const check = useMemo(() => checkPipeline(state), [state])
  const local = state.pipeline.map((entry) => (entry.last?.status === 'ok' ? entry.last.timeMs : undefined))
  const localTotal = local.every((ms) => ms !== undefined) ? local.reduce((sum, ms) => sum + (ms ?? 0), 0) : undefined
  const blocked = !connection || state.pipeline.length === 0 || check.problems.length > 0

  const run = async () => {
    setError(undefined)
    const outcome = await runPipelineOnServer(sandbox, executor)
    if (!outcome.ok) setError(outcome.error)
  }
  const upload = async () => {
    setError(undefined)
    const outcome = await uploadEvaluationKeys(sandbox)
    if (!outcome.ok) setError(outcome.error)
  }
  const hasEvaluationKeys = state.keys.relinKeys !== undefined || state.keys.galoisKeys !== undefined

  return (
    <section className="card" aria-label="Run the pipeline on the server">
      <h2>Run the pipeline on the server</h2>
      <p className="card-intro">
        The server runs the same he-core evaluator on your ciphertexts with the evaluation keys you upload; results come
        back encrypted and are decrypted here.
      </p>
      <fieldset className="field">
        <legend className="field-label">Where the server runs it</legend>
        <Segmented name="executor" value={executor} options={EXECUTOR_OPTIONS} onChange={setExecutor} />
        <p className="field-help">
          Pool runs HE in worker threads, so the server keeps answering other requests; process runs it in child
          processes (a crash or a runaway job cannot take the server down); inline runs it on the event loop (kept for
          comparison). Choosing needs a server started with ALLOW_EXECUTOR_OVERRIDE.
        </p>
      </fieldset>
      <div className="field">
        <p className="field-label">Evaluation keys on the server</p>
        <div className="actions">
          <span className="muted" data-testid="server-keys">
            {uploaded
              ? `${uploaded.name}: ${formatBytes(uploaded.bytes)} of relinearization and Galois keys (the secret key stays here).`
              : 'None yet: they are uploaded before the first run, or now.'}
          </span>
          <button
            type="button"
            className="button-small"
            disabled={!connection || !hasEvaluationKeys || job !== undefined}
            onClick={() => void upload()}
          >
            {uploaded ? 'Upload again' : 'Upload evaluation keys'}
          </button>
        </div>
      </div>
      <div className="actions">
        <button
          type="button"
          className="button-primary"
          disabled={blocked || job !== undefined}
          onClick={() => void run()}
        >
          Run pipeline on server
        </button>
        <span className="muted">
          {!connection
            ? 'Connect first.'
            : state.pipeline.length === 0
              ? 'Build a pipeline on the Functions panel first.'
              : check.problems[0]
                ? check.problems[0].message
                : localTotal !== undefined
                  ? `Here: ${formatMs(localTotal)} for ${state.pipeline.length} steps.`
                  : 'Run it here too (Functions) to compare values.'}
        </span>
      </div>
      {error ? <ErrorNotice error={error} title="The server run failed" onDismiss={() => setError(undefined)} /> : null}
      {runs.map((remote) => (
        <RunView key={remote.id} run={remote} variables={state.variables} localTotal={localTotal} />
      ))}
    </section>
  )
}

function RunView({
  run,
  variables,
  localTotal,
}: {
  run: RemoteRun
  variables: VariableEntry[]
  localTotal: number | undefined
}) {
  const serverCompute = run.stepMs.every(Number.isFinite) ? run.stepMs.reduce((a, b) => a + b, 0) : undefined
  return (
    <div className="remote-run" data-testid="remote-run">
      <div className="remote-run-head">
        <strong>Run {run.id}</strong>
        <span className="badge badge-accent">{run.work.executor ?? 'executor not reported'}</span>
        {run.requested !== 'default' ? <span className="muted">asked for {run.requested}</span> : null}
        {serverCompute !== undefined ? (
          <span className="muted">
            steps {formatMs(serverCompute)} on the server
            {localTotal !== undefined ? ` vs ${formatMs(localTotal)} here` : ''}
          </span>
        ) : null}
        {run.keyUpload ? (
          <span className="muted">
            · uploaded keys {formatBytes(run.keyUpload.bytes)} in {formatMs(run.keyUpload.ms)}
          </span>
        ) : null}
      </div>
      <TimingBreakdown work={run.work} />
      <table className="data-table">
        <thead>
          <tr>
            <th>Output</th>
            <th>Here</th>
            <th>Server (decrypted here)</th>
            <th>Same?</th>
          </tr>
        </thead>
        <tbody>
          {run.outputs.map((output) => {
            const mine = variables.find((v) => v.name === output.name && v.origin === 'pipeline')
            const same = mine?.preview && output.preview ? sameValues(mine.preview, output.preview) : undefined
            return (
              <tr key={output.name} data-testid={`remote-output-${output.name}`}>
                <td className="mono">{output.name}</td>
                <td>
                  {mine ? <Preview values={mine.preview} count={5} /> : <span className="muted">not run here</span>}
                </td>
                <td>
                  <Preview values={output.preview} count={5} />
                  {output.noiseBudget !== undefined ? (
                    <span className="muted"> · {output.noiseBudget} bits</span>
                  ) : null}
                </td>
                <td>
                  {same === undefined ? (
                    '—'
                  ) : same ? (
                    <span className="badge badge-ok">same</span>
                  ) : (
                    <span className="badge badge-bad" title={output.preview?.map(formatValue).join(', ')}>
                      differs
                    </span>
                  )}
                </td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </div>
  )
}

import type { HeError } from '@sealbox/he-core'
import { useMemo, useState } from 'react'
import { useActivity, useSandbox, useWorkspace } from '../../app/SandboxContext.tsx'
import { addStep, namesBefore, runAllSteps } from '../../sandbox/actions/pipelineActions.ts'
import { ErrorNotice } from '../../ui/ErrorNotice.tsx'
import { checkPipeline } from '../../workspace/pipeline.ts'
import { NeedsContext } from '../NeedsContext.tsx'
import { NoiseChart } from './NoiseChart.tsx'
import { OpSelect } from './OpSelect.tsx'
import { StepCard } from './StepCard.tsx'
import { usePipelineComparison } from './usePipelineComparison.ts'

/** Functions: a pipeline of HE steps over the workspace, run one step at a time or all at once. */
export function FunctionsPanel() {
  return (
    <NeedsContext what="Functions">
      <Pipeline />
    </NeedsContext>
  )
}

function Pipeline() {
  const sandbox = useSandbox()
  const state = useWorkspace()
  const { job } = useActivity()
  const [op, setOp] = useState('')
  const [error, setError] = useState<HeError>()
  const check = useMemo(() => checkPipeline(state), [state])
  const { applied, pipeline, variables } = state
  const results = useMemo(() => variables.filter((v) => v.origin === 'pipeline'), [variables])
  const comparisons = usePipelineComparison(check.program, applied?.input.scheme ?? 'ckks', results)
  if (!applied) return null
  const busy = job !== undefined
  const blocking = check.problems[0]
  const analysis = check.analysis

  const runAll = async () => {
    setError(undefined)
    const outcome = await runAllSteps(sandbox)
    if (!outcome.ok && outcome.error.code !== 'CANCELLED') setError(outcome.error)
  }

  return (
    <div className="panel-stack">
      <section className="card" aria-label="Pipeline">
        <div className="card-header">
          <h2>Pipeline</h2>
          <div className="actions">
            <button
              type="button"
              className="button-primary"
              disabled={busy || pipeline.length === 0}
              onClick={() => void runAll()}
            >
              Run all steps
            </button>
          </div>
        </div>
        <p className="card-intro">
          Each step reads variables or earlier results and writes a new name. Results become variables you can decrypt,
          download, or feed to the next step. The first failing step stops the run and says why.
        </p>
        {analysis ? (
          <p className="pipeline-needs" data-testid="pipeline-needs">
            Needs: {analysis.needsRelinKeys ? 'relinearization keys' : 'no relinearization keys'}
            {analysis.keyGenSteps.length > 0
              ? `, Galois keys for ${galoisNeeds(analysis.keyGenSteps, applied.input.scheme === 'ckks')}`
              : ', no Galois keys'}{' '}
            · {analysis.keySwitches} key switch{analysis.keySwitches === 1 ? '' : 'es'}
          </p>
        ) : null}
        {blocking ? (
          <div className="notice notice-warning" role="status" data-testid="pipeline-problem">
            <div className="notice-body">
              <p>{blocking.message}</p>
              {blocking.code === 'MISSING_KEY' ? (
                <p>
                  <a href="#keys">Generate the keys on the Keys panel</a>.
                </p>
              ) : null}
            </div>
          </div>
        ) : null}

        {check.program && check.program.steps.length > 0 ? <NoiseChart program={check.program} /> : null}
        {pipeline.length === 0 ? (
          <div className="empty">
            No steps yet. {variables.length === 0 ? 'Create some variables first, then add' : 'Add'} a step below.
          </div>
        ) : (
          <ol className="step-list">
            {pipeline.map((entry, index) => (
              <StepCard
                key={entry.id}
                entry={entry}
                index={index}
                count={pipeline.length}
                scheme={applied.input.scheme}
                available={namesBefore(state, index)}
                result={variables.find((v) => v.name === entry.out && v.origin === 'pipeline')}
                busy={busy}
                problem={check.problems.find((p) => p.stepIndex === index)?.message}
                comparison={comparisons.get(entry.out)}
              />
            ))}
          </ol>
        )}

        <form
          className="add-step"
          onSubmit={(event) => {
            event.preventDefault()
            if (op === '') return
            addStep(sandbox, op)
            setOp('')
            // The button disables itself (nothing chosen): keep the keyboard where the next step is chosen.
            document.getElementById('add-step-op')?.focus()
          }}
        >
          <label className="field-label" htmlFor="add-step-op">
            Add a step
          </label>
          <div className="actions">
            <OpSelect
              id="add-step-op"
              label="Operation to add"
              value={op}
              scheme={applied.input.scheme}
              onChange={setOp}
            />
            <button type="submit" disabled={op === ''}>
              Add step
            </button>
          </div>
        </form>
        {error ? <ErrorNotice error={error} onDismiss={() => setError(undefined)} /> : null}
      </section>
    </div>
  )
}

/**
 * What the Galois keys are for, in words: "rotations by 1, 2 and the row swap" (step 0
 * is the column rotation of BFV/BGV, complex conjugation in CKKS).
 */
function galoisNeeds(steps: readonly number[], ckks: boolean): string {
  const rotations = steps.filter((step) => step !== 0)
  const parts: string[] = []
  if (rotations.length > 0) parts.push(`rotation${rotations.length === 1 ? '' : 's'} by ${rotations.join(', ')}`)
  if (steps.includes(0)) parts.push(ckks ? 'complex conjugation' : 'the row swap')
  return parts.join(' and ')
}

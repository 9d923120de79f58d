import type { HeError } from '@sealbox/he-core'
import { useMemo, useState } from 'react'
import { useActivity, useSandbox, useWorkspace } from '../../app/SandboxContext.tsx'
import {
  convertVariable,
  decodeVariable,
  downloadVariable,
  removeVariable,
} from '../../sandbox/actions/variableActions.ts'
import { ErrorNotice } from '../../ui/ErrorNotice.tsx'
import { formatMs } from '../../ui/format.ts'
import { Inspector } from '../../ui/Inspector.tsx'
import { freeName } from '../../workspace/names.ts'
import { formatValue } from '../../workspace/parseValues.ts'
import type { VariableEntry } from '../../workspace/workspaceState.ts'
import { Preview, ValueFacts } from './ValueFacts.tsx'

const ORIGIN: Record<VariableEntry['origin'], string> = {
  values: 'from values',
  upload: 'uploaded',
  convert: 'converted',
  pipeline: 'pipeline result',
}

/** Every plaintext and ciphertext of the workspace, with its facts and actions. */
export function VariableList() {
  const { variables } = useWorkspace()
  if (variables.length === 0) {
    return (
      <section className="card" aria-label="Variables">
        <h2>Variables</h2>
        <div className="empty">No variables yet. Type some numbers on the left, or upload a file.</div>
      </section>
    )
  }
  return (
    <section className="card" aria-label="Variables">
      <h2>Variables</h2>
      <ul className="variable-list">
        {variables.map((variable) => (
          <VariableRow key={variable.name} variable={variable} />
        ))}
      </ul>
    </section>
  )
}

function VariableRow({ variable }: { variable: VariableEntry }) {
  const sandbox = useSandbox()
  const { variables, keys } = useWorkspace()
  const { job } = useActivity()
  const [error, setError] = useState<HeError>()
  const [all, setAll] = useState<Array<bigint | number>>()
  const [inspecting, setInspecting] = useState(false)
  const taken = useMemo(() => new Set(variables.map((v) => v.name)), [variables])
  const busy = job !== undefined
  const ciphertext = variable.kind === 'ciphertext'

  const convert = async () => {
    setError(undefined)
    const name = freeName(`${variable.name}_${ciphertext ? 'dec' : 'enc'}`, taken)
    const outcome = await convertVariable(sandbox, variable.name, name, ciphertext ? 'plaintext' : 'ciphertext')
    if (!outcome.ok) setError(outcome.error)
  }
  const decodeAll = async () => {
    if (all) {
      setAll(undefined)
      return
    }
    setError(undefined)
    const outcome = await decodeVariable(sandbox, variable.name)
    if (outcome.ok) setAll(outcome.value)
    else setError(outcome.error)
  }

  return (
    <li className="variable-row" data-testid={`variable-${variable.name}`}>
      <div className="variable-head">
        <span className="variable-name mono">{variable.name}</span>
        <span className={`badge ${ciphertext ? 'badge-accent' : ''}`}>{variable.kind}</span>
        <ValueFacts
          level={variable.level}
          size={variable.size}
          scaleBits={variable.scaleBits}
          noiseBudget={variable.noiseBudget}
          bytes={variable.bytes}
        />
        <span className="muted variable-origin">
          {ORIGIN[variable.origin]}
          {variable.ms !== undefined ? ` · ${formatMs(variable.ms)}` : ''}
        </span>
      </div>
      <div className="variable-preview">
        <Preview values={variable.preview} noiseBudget={variable.noiseBudget} />
      </div>
      {all ? (
        <div className="decoded-all">
          <code className="values">{all.map(formatValue).join(', ')}</code>
        </div>
      ) : null}
      <div className="actions">
        <button
          type="button"
          className="button-small"
          disabled={busy || !keys.secretKey}
          onClick={() => void convert()}
          title={keys.secretKey ? undefined : 'Needs keys'}
          aria-label={`${ciphertext ? 'Decrypt' : 'Encrypt'} ${variable.name}`}
        >
          {ciphertext ? 'Decrypt' : 'Encrypt'}
        </button>
        <button
          type="button"
          className="button-small"
          disabled={busy || (ciphertext && !keys.secretKey)}
          onClick={() => void decodeAll()}
          aria-expanded={all !== undefined}
          aria-label={`${all ? 'Hide slots' : ciphertext ? 'Decrypt and decode all slots' : 'Decode all slots'} of ${variable.name}`}
        >
          {all ? 'Hide slots' : ciphertext ? 'Decrypt and decode all slots' : 'Decode all slots'}
        </button>
        <button
          type="button"
          className="button-small"
          onClick={() => setInspecting((open) => !open)}
          aria-expanded={inspecting}
          aria-label={`Inspect ${variable.name}`}
        >
          Inspect
        </button>
        <button
          type="button"
          className="button-small"
          onClick={() => downloadVariable(sandbox, variable.name)}
          aria-label={`Download ${variable.name}`}
        >
          Download
        </button>
        <button
          type="button"
          className="button-small button-ghost"
          disabled={busy}
          onClick={() => void removeVariable(sandbox, variable.name)}
          aria-label={`Remove ${variable.name}`}
        >
          Remove
        </button>
      </div>
      {inspecting ? (
        <Inspector
          label={`${variable.kind} ${variable.name}`}
          target={{ kind: 'variable', name: variable.name }}
          envelope={variable.envelope}
        />
      ) : null}
      {error ? <ErrorNotice error={error} onDismiss={() => setError(undefined)} /> : null}
    </li>
  )
}

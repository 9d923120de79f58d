import { PROGRAM_OPS, type SchemeName } from '@sealbox/he-core'
import type { KeyboardEvent } from 'react'
import { useSandbox, useWorkspace } from '../../app/SandboxContext.tsx'
import { decryptAnyway } from '../../sandbox/actions/learningActions.ts'
import { changeStep, moveStep, removeStep, runOneStep } from '../../sandbox/actions/pipelineActions.ts'
import { formatMs } from '../../ui/format.ts'
import { formWords } from '../../ui/formWords.ts'
import type { ExactComparison } from '../../worker/protocol.ts'
import { formatValue } from '../../workspace/parseValues.ts'
import { hasOperandB, hasRotationSteps, isProgramOp } from '../../workspace/pipeline.ts'
import type { PipelineEntry, VariableEntry } from '../../workspace/workspaceState.ts'
import { Preview, ValueFacts } from '../variables/ValueFacts.tsx'
import { GarbageView } from './GarbageView.tsx'
import { OpSelect } from './OpSelect.tsx'

type Operand = { name: string; kind: 'plaintext' | 'ciphertext' }

function OperandSelect({
  id,
  label,
  value,
  options,
  onChange,
}: {
  id: string
  label: string
  value: string
  options: Operand[]
  onChange: (name: string) => void
}) {
  const known = options.some((o) => o.name === value)
  return (
    <select id={id} aria-label={label} value={value} onChange={(event) => onChange(event.target.value)}>
      {!known ? <option value={value}>{value === '' ? 'choose…' : `${value} (missing)`}</option> : null}
      {options.map((o) => (
        <option key={o.name} value={o.name}>
          {o.name} ({o.kind})
        </option>
      ))}
    </select>
  )
}

/**
 * BFV/BGV: a result decrypted right modulo t whose integer value wrapped around t says so,
 * with the exact values (the ✓ would call it correct). Nothing otherwise.
 */
function WrapWarning({ comparison, plainModulus }: { comparison: ExactComparison | undefined; plainModulus?: bigint }) {
  const slots = comparison?.wrappedSlots ?? 0
  // Wrong slots mean garbage (noise), not wrapping: that is said elsewhere.
  if (!comparison || slots === 0 || (comparison.wrongSlots ?? 0) > 0) return null
  const exact = comparison.wrappedExact ?? []
  const more = slots > exact.length ? ', …' : ''
  return (
    <p className="step-warning" role="status" data-testid="step-wrapped">
      <strong>Wrapped around.</strong> These values wrapped around the plain modulus t
      {plainModulus === undefined ? '' : ` = ${plainModulus}`} in {slots} slot{slots === 1 ? '' : 's'}: the exact
      results are {exact.map(formatValue).join(', ')}
      {more}; use a larger plain modulus.
    </p>
  )
}

/**
 * One pipeline step: operation, operands from the workspace (and earlier results),
 * its parameter, the name of its result, and what its last run did. Alt+↑/↓ moves it.
 */
export function StepCard({
  entry,
  index,
  count,
  scheme,
  available,
  result,
  busy,
  problem,
  comparison,
}: {
  entry: PipelineEntry
  index: number
  count: number
  scheme: SchemeName
  available: Operand[]
  result: VariableEntry | undefined
  busy: boolean
  problem: string | undefined
  /** BFV/BGV: the result next to the plain oracle's, once the worker has compared them. */
  comparison?: ExactComparison | undefined
}) {
  const sandbox = useSandbox()
  const { applied } = useWorkspace()
  const info = isProgramOp(entry.op) ? PROGRAM_OPS[entry.op] : undefined
  const kindOf = (field: 'a' | 'b') => info?.operands.find((o) => o.field === field)?.kind ?? 'ciphertext'
  const optionsFor = (field: 'a' | 'b') => {
    const kind = kindOf(field)
    return kind === 'either' ? available : available.filter((o) => o.kind === kind)
  }
  const set = (change: Partial<PipelineEntry>) => changeStep(sandbox, entry.id, change)
  const prefix = `step-${entry.id}`
  const label = `Step ${index + 1}`

  const onKeyDown = (event: KeyboardEvent<HTMLLIElement>) => {
    if (!event.altKey || (event.key !== 'ArrowUp' && event.key !== 'ArrowDown')) return
    event.preventDefault()
    moveStep(sandbox, entry.id, event.key === 'ArrowUp' ? -1 : 1)
  }

  const last = entry.last
  // A result made under other parameters, keys or variables no longer exists: its ✓ would mislead.
  const stale = last?.status === 'ok' && result === undefined
  // BFV/BGV results are right modulo t; the plain oracle over the integers says whether they wrapped.
  const wrapped =
    last?.status === 'ok' && !stale && (comparison?.wrappedSlots ?? 0) > 0 && (comparison?.wrongSlots ?? 0) === 0
  const tone =
    last?.status === 'failed'
      ? 'step-failed'
      : stale
        ? 'step-stale'
        : wrapped
          ? 'step-wrapped'
          : last?.status === 'ok'
            ? 'step-ok'
            : ''
  return (
    <li className={`step-card ${tone}`} data-testid={`step-${index + 1}`} aria-label={label} onKeyDown={onKeyDown}>
      <div className="step-main">
        <span className="step-number" aria-hidden="true">
          {index + 1}
        </span>
        <div className="step-fields">
          <OpSelect
            id={`${prefix}-op`}
            label={`${label} operation`}
            value={entry.op}
            scheme={scheme}
            onChange={(op) => set({ op })}
          />
          <span className="step-of">of</span>
          <OperandSelect
            id={`${prefix}-a`}
            label={`${label} operand a`}
            value={entry.a}
            options={optionsFor('a')}
            onChange={(a) => set({ a })}
          />
          {hasOperandB(entry.op) ? (
            <>
              <span className="step-of">and</span>
              <OperandSelect
                id={`${prefix}-b`}
                label={`${label} operand b`}
                value={entry.b}
                options={optionsFor('b')}
                onChange={(b) => set({ b })}
              />
            </>
          ) : null}
          {hasRotationSteps(entry.op) ? (
            <label className="step-param">
              by
              <input
                type="number"
                aria-label={`${label} rotation steps`}
                value={entry.steps}
                onChange={(event) => set({ steps: Math.trunc(Number(event.target.value)) })}
              />
            </label>
          ) : null}
          {entry.op === 'exponentiate' ? (
            <label className="step-param">
              to the power
              <input
                type="number"
                min={1}
                aria-label={`${label} exponent`}
                value={entry.exponent}
                onChange={(event) => set({ exponent: Math.max(1, Math.trunc(Number(event.target.value))) })}
              />
            </label>
          ) : null}
          <span className="step-arrow" aria-hidden="true">
            →
          </span>
          <input
            className="mono step-out"
            style={{ width: `${Math.max(6, entry.out.length + 3)}ch` }}
            aria-label={`${label} result name`}
            value={entry.out}
            spellCheck={false}
            onChange={(event) => set({ out: event.target.value })}
          />
          {info?.alignable ? (
            <label
              className="step-param"
              title="Mod-switch the higher operand down (and accept rescaling round-off in scales)"
            >
              <input type="checkbox" checked={entry.align} onChange={(event) => set({ align: event.target.checked })} />
              align levels
            </label>
          ) : null}
        </div>
        <div className="step-actions">
          <button
            type="button"
            className="button-small"
            disabled={busy}
            onClick={() => void runOneStep(sandbox, index)}
            aria-label={`Run step ${index + 1}`}
          >
            Run
          </button>
          <button
            type="button"
            className="button-small button-ghost"
            disabled={index === 0}
            onClick={() => moveStep(sandbox, entry.id, -1)}
            aria-label={`Move step ${index + 1} up`}
          >
            ↑
          </button>
          <button
            type="button"
            className="button-small button-ghost"
            disabled={index === count - 1}
            onClick={() => moveStep(sandbox, entry.id, 1)}
            aria-label={`Move step ${index + 1} down`}
          >
            ↓
          </button>
          <button
            type="button"
            className="button-small button-ghost"
            onClick={() => {
              removeStep(sandbox, entry.id)
              // The button left with its card: the keyboard goes on from the card now in its place, or the step menu.
              requestAnimationFrame(() => {
                const next = document.querySelector<HTMLElement>(
                  `[data-testid="step-${index + 1}"] button[aria-label^="Remove step"]`,
                )
                ;(next ?? document.getElementById('add-step-op'))?.focus()
              })
            }}
            aria-label={`Remove step ${index + 1}`}
          >
            ✕
          </button>
        </div>
      </div>
      <div className="step-result" data-testid="step-result">
        {last?.status === 'failed' ? (
          <>
            <p className="step-error" role="alert" data-error-code={last.code}>
              <strong>Stopped here.</strong> {formWords(last.message)}
            </p>
            {last.code === 'NOISE_BUDGET_EXHAUSTED' ? (
              result ? (
                <GarbageView index={index} result={result} />
              ) : (
                <p className="garbage-offer">
                  <button
                    type="button"
                    className="button-small button-danger-ghost"
                    disabled={busy}
                    onClick={() => void decryptAnyway(sandbox, index)}
                    aria-label={`Decrypt anyway (step ${index + 1})`}
                  >
                    Decrypt anyway
                  </button>{' '}
                  <span className="muted">see the wrong values the refusal protects you from</span>
                </p>
              )
            ) : null}
          </>
        ) : stale ? (
          <p className="step-stale-note" data-testid="step-stale">
            <strong>Stale.</strong> Its result '{entry.out}' is gone (new parameters, keys or variables since it ran);
            run the step again.
          </p>
        ) : last?.status === 'ok' ? (
          <>
            <div className="step-done">
              {wrapped ? (
                <span className="step-wrap-mark" role="img" aria-label="wrapped around the plain modulus">
                  ⚠
                </span>
              ) : (
                <span className="step-check" role="img" aria-label="done">
                  ✓
                </span>
              )}
              <span className="mono">{formatMs(last.timeMs)}</span>
              <ValueFacts
                level={last.level}
                size={last.size}
                scaleBits={last.scaleBits}
                noiseBudget={last.noiseBudget}
              />
              {result ? <Preview values={result.preview} noiseBudget={result.noiseBudget} /> : null}
            </div>
            <WrapWarning comparison={comparison} plainModulus={applied?.plainModulus} />
          </>
        ) : problem ? (
          <p className="step-warning">{problem}</p>
        ) : (
          <p className="muted">{info?.summary ?? 'Choose an operation.'}</p>
        )}
      </div>
    </li>
  )
}

import { type HeError, POLY_MODULUS_DEGREES, parseParams, SCHEMES } from '@sealbox/he-core'
import { useMemo, useState } from 'react'
import { LossWarning, SecretKeyDownloadButton } from '../../app/LossWarning.tsx'
import { useActivity, useSandbox, useWorkspace } from '../../app/SandboxContext.tsx'
import { applyParams } from '../../sandbox/actions/paramsActions.ts'
import { ErrorNotice } from '../../ui/ErrorNotice.tsx'
import { FieldError } from '../../ui/FieldError.tsx'
import { formatMs } from '../../ui/format.ts'
import { PowerOfTwo } from '../../ui/PowerOfTwo.tsx'
import { Segmented } from '../../ui/Segmented.tsx'
import {
  checkDraft,
  draftFieldOf,
  draftProblems,
  type ParamsDraft,
  SANDBOX_SECURITY_LEVELS,
} from '../../workspace/paramsDraft.ts'
import { holdsWork, replacingLabel } from '../../workspace/workspaceLosses.ts'
import { ParamsAssistant } from './ParamsAssistant.tsx'
import { ParamsFactsView } from './ParamsFactsView.tsx'
import { plainWordsFirst } from './plainWordsFirst.ts'

const SCHEME_NOTES: Record<(typeof SCHEMES)[number], string> = {
  bfv: 'Exact integer arithmetic modulo t, on vectors of integers.',
  bgv: 'Exact integer arithmetic modulo t; noise handled by modulus switching.',
  ckks: 'Approximate arithmetic on real numbers (fixed-point with a scale).',
}

const SECURITY_LABELS: Record<(typeof SANDBOX_SECURITY_LEVELS)[number], string> = {
  tc128: '128-bit',
  tc192: '192-bit',
  tc256: '256-bit',
}

/**
 * Parameters: the form is validated on every keystroke by he-core's own rules and
 * facts (no SEAL involved); "Use these parameters" builds the context in the worker.
 */
export function ParametersPanel() {
  const sandbox = useSandbox()
  const state = useWorkspace()
  const { draft, applied, keys } = state
  const check = useMemo(() => checkDraft(draft), [draft])
  const [error, setError] = useState<HeError>()
  const [confirming, setConfirming] = useState(false)
  /** This form's own build is running: the button says so (a long n = 32768 build is otherwise silent here). */
  const [building, setBuilding] = useState(false)
  const { job } = useActivity()

  // Every broken rule at once, each under its own control.
  const problems = useMemo(() => (check.ok ? [] : draftProblems(draft)), [check, draft])
  const problemAt = (field: keyof ParamsDraft | 'params') => problems.find((p) => draftFieldOf(p.field) === field)
  const invalid = (field: keyof ParamsDraft) => problemAt(field) !== undefined
  const fieldError = (field: keyof ParamsDraft | 'params') => {
    const problem = problemAt(field)
    return problem ? plainWordsFirst(problem.message) : undefined
  }

  const appliedKey = useMemo(() => (applied ? JSON.stringify(parseParams(applied.input)) : undefined), [applied])
  const isApplied = check.ok && appliedKey === JSON.stringify(check.resolved)

  const setDraft = (change: Partial<ParamsDraft>) =>
    sandbox.workspace.update((state) => ({ ...state, draft: { ...state.draft, ...change } }))

  const switchCoeffMode = (mode: ParamsDraft['coeffMode']) => {
    // Custom starts from the current preset so the user edits, not retypes.
    if (mode === 'custom' && check.ok)
      setDraft({ coeffMode: mode, coeffBits: check.resolved.coeffModulusBits.join(', ') })
    else setDraft({ coeffMode: mode })
  }

  const apply = async () => {
    if (!check.ok) return
    setConfirming(false)
    setError(undefined)
    setBuilding(true)
    const outcome = await applyParams(sandbox, check.input).finally(() => setBuilding(false))
    if (!outcome.ok && outcome.error.code !== 'CANCELLED') setError(outcome.error)
  }

  const onApply = () => {
    if (applied && holdsWork(sandbox.workspace.state)) setConfirming(true)
    else void apply()
  }

  return (
    <div className="panel-grid">
      <form
        className="card"
        aria-label="Encryption parameters"
        onSubmit={(event) => {
          event.preventDefault()
          onApply()
        }}
      >
        <p className="assistant-pointer">
          Not sure what to pick?{' '}
          <button
            type="button"
            className="button-small"
            onClick={() => {
              const assistant = document.querySelector<HTMLElement>('[data-testid="params-assistant"]')
              assistant?.scrollIntoView({ block: 'start' })
              assistant?.querySelector<HTMLElement>('input, select')?.focus({ preventScroll: true })
            }}
          >
            Suggest parameters
          </button>{' '}
          from what you need to compute.
        </p>
        <fieldset className="field">
          <legend className="field-label">Scheme</legend>
          <Segmented
            name="scheme"
            value={draft.scheme}
            options={SCHEMES.map((scheme) => ({ value: scheme, label: scheme.toUpperCase() }))}
            onChange={(scheme) => setDraft({ scheme, scaleBits: '' })}
          />
          <p className="field-help">{SCHEME_NOTES[draft.scheme]}</p>
        </fieldset>

        <fieldset className="field">
          <legend className="field-label">Poly modulus degree n</legend>
          <Segmented
            name="polyModulusDegree"
            value={String(draft.polyModulusDegree)}
            options={POLY_MODULUS_DEGREES.map((n) => ({ value: String(n), label: String(n) }))}
            onChange={(n) => setDraft({ polyModulusDegree: Number(n) })}
          />
          <p className="field-help">
            Ring size: more slots and more room for noise, but slower and larger. 4096–8192 suit most experiments.
          </p>
          <FieldError message={fieldError('polyModulusDegree')} />
        </fieldset>

        <div className="field">
          <label className="field-label" htmlFor="security">
            Security level
          </label>
          <select
            id="security"
            value={draft.security}
            onChange={(event) => setDraft({ security: event.target.value as ParamsDraft['security'] })}
          >
            {SANDBOX_SECURITY_LEVELS.map((level) => (
              <option key={level} value={level}>
                {SECURITY_LABELS[level]} (HomomorphicEncryption.org standard)
              </option>
            ))}
          </select>
          <FieldError message={fieldError('security')} />
        </div>

        <fieldset className="field">
          <legend className="field-label">Coefficient modulus</legend>
          <Segmented
            name="coeffMode"
            value={draft.coeffMode}
            options={[
              { value: 'default', label: draft.scheme === 'ckks' ? 'Preset' : 'SEAL default' },
              { value: 'custom', label: 'Custom bit sizes' },
            ]}
            onChange={switchCoeffMode}
          />
          {draft.coeffMode === 'custom' ? (
            <>
              <label className="visually-hidden" htmlFor="coeffBits">
                Prime bit sizes
              </label>
              <input
                id="coeffBits"
                className="mono"
                value={draft.coeffBits}
                spellCheck={false}
                aria-invalid={invalid('coeffBits')}
                aria-describedby="coeffBits-help"
                onChange={(event) => setDraft({ coeffBits: event.target.value })}
              />
              <p className="field-help" id="coeffBits-help">
                Prime sizes in bits, separated by commas or spaces; the last one is the special prime used for key
                switching.
              </p>
            </>
          ) : (
            <p className="field-help mono">{check.ok ? `[${check.resolved.coeffModulusBits.join(', ')}]` : ''}</p>
          )}
          <FieldError message={fieldError('coeffBits')} />
        </fieldset>

        {draft.scheme === 'ckks' ? (
          <div className="field">
            <label className="field-label" htmlFor="scaleBits">
              Scale (bits)
            </label>
            <input
              id="scaleBits"
              className="mono input-short"
              inputMode="decimal"
              placeholder={check.ok ? String(check.resolved.scaleBits) : ''}
              value={draft.scaleBits}
              aria-invalid={invalid('scaleBits')}
              onChange={(event) => setDraft({ scaleBits: event.target.value })}
            />
            <p className="field-help">
              Values are encoded as value × <PowerOfTwo exponent="bits" />. Leave empty for the preset; match your
              middle primes so a rescale returns to the same scale.
            </p>
            <FieldError message={fieldError('scaleBits')} />
          </div>
        ) : (
          <fieldset className="field">
            <legend className="field-label">Plain modulus t</legend>
            <Segmented
              name="plainMode"
              value={draft.plainMode}
              options={[
                { value: 'bits', label: 'Batching prime of' },
                { value: 'value', label: 'Exact prime' },
              ]}
              onChange={(plainMode) => setDraft({ plainMode })}
            />{' '}
            {draft.plainMode === 'bits' ? (
              <span className="inline-input">
                <input
                  id="plainBits"
                  aria-label="Plain modulus bits"
                  className="mono input-tiny"
                  inputMode="numeric"
                  value={draft.plainBits}
                  aria-invalid={invalid('plainBits')}
                  onChange={(event) => setDraft({ plainBits: event.target.value })}
                />{' '}
                bits
              </span>
            ) : (
              <input
                id="plainValue"
                aria-label="Plain modulus value"
                className="mono input-short inline-input"
                inputMode="numeric"
                value={draft.plainValue}
                aria-invalid={invalid('plainBits')}
                onChange={(event) => setDraft({ plainValue: event.target.value })}
              />
            )}
            <p className="field-help">
              Values live in (−t/2, t/2); every result is reduced mod t. A larger t leaves less noise budget. Batching
              needs a prime t ≡ 1 (mod 2n), e.g. 65537.
            </p>
            <FieldError message={fieldError('plainBits')} />
          </fieldset>
        )}

        {problemAt('params') ? <FieldError message={fieldError('params')} /> : null}

        <div className="actions">
          <button type="submit" className="button-primary" disabled={!check.ok || isApplied || job !== undefined}>
            {building
              ? 'Building the context…'
              : isApplied
                ? 'In use'
                : applied
                  ? 'Use these parameters'
                  : 'Create context'}
          </button>
          {applied ? (
            <span className="muted" data-testid="params-in-use">
              In use: {applied.input.scheme.toUpperCase()}, n = {applied.input.polyModulusDegree},{' '}
              {applied.reused
                ? 'context reused from cache (these parameters were already built)'
                : `context built in ${formatMs(applied.contextMs)}`}{' '}
              · fingerprint <code>{applied.fingerprint.slice(0, 12)}…</code>
            </span>
          ) : (
            <span className="muted">Nothing is generated until you create the context.</span>
          )}
        </div>
        {isApplied && !keys.secretKey ? (
          <p className="next-step" data-testid="next-step">
            The context is ready. Next, make the keys that encrypt, decrypt and compute:{' '}
            <a href="#keys" className="button button-primary" data-focus-after-job>
              Go to Keys →
            </a>
          </p>
        ) : null}
        {confirming ? (
          <div className="notice notice-warning" role="alertdialog" aria-label="Discard keys and variables?">
            <div className="notice-body">
              <strong>New parameters discard your keys and variables.</strong>
              <p>
                They were made under the current parameters and cannot be used with new ones. Download them first if you
                need them.
              </p>
              <LossWarning lead="New parameters discard" options={{ pipeline: false }} testId="params-loss" />
              <div className="actions">
                <SecretKeyDownloadButton />
                <button type="button" className="button-danger" onClick={() => void apply()}>
                  {replacingLabel('Discard and use new parameters', state, { pipeline: false, verb: 'drops' })}
                </button>
                <button type="button" onClick={() => setConfirming(false)}>
                  Keep current parameters
                </button>
              </div>
            </div>
          </div>
        ) : null}
        {error ? (
          <ErrorNotice error={error} title="Could not build the context" onDismiss={() => setError(undefined)} />
        ) : null}
      </form>

      <div className="panel-column">
        <ParamsFactsView
          check={check}
          draft={draft}
          problems={problems}
          plainModulus={isApplied ? applied?.plainModulus : undefined}
        />
        <ParamsAssistant />
      </div>
    </div>
  )
}

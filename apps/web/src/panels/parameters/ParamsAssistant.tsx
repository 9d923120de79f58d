import { type HeError, type ParamsNeeds, suggestParams, toHeError } from '@sealbox/he-core'
import { useEffect, useId, useState } from 'react'
import { useSandbox, useWorkspace } from '../../app/SandboxContext.tsx'
import { ErrorNotice } from '../../ui/ErrorNotice.tsx'
import { Segmented } from '../../ui/Segmented.tsx'
import { draftOf, SANDBOX_SECURITY_LEVELS } from '../../workspace/paramsDraft.ts'
import { ASSISTANT_LABELS, assistantProblem, assistantReason } from './assistantWords.ts'

/** The assistant's form as typed: text stays text so a half-typed number is explained, not lost. */
interface NeedsDraft {
  /** BFV and BGV hold whole numbers, CKKS real ones. */
  scheme: 'bfv' | 'bgv' | 'ckks'
  depth: string
  slots: string
  bits: string
  security: ParamsNeeds['security']
}

function needsOf(draft: NeedsDraft): ParamsNeeds {
  // Number('') is 0 and Number('2x') NaN: suggestParams explains both.
  const number = (text: string) => (text.trim() === '' ? Number.NaN : Number(text))
  const bits = number(draft.bits)
  return {
    depth: number(draft.depth),
    slots: number(draft.slots),
    security: draft.security,
    ...(draft.scheme === 'ckks' ? { precisionBits: bits } : { plainBits: bits, scheme: draft.scheme }),
  }
}

/** What the suggestion does for the values, in its scheme's terms: a scale and precision for CKKS, a plain modulus for BFV/BGV. */
function valuesLine(params: { scheme: string; scaleBits?: number | undefined }, bits: string): string {
  if (params.scheme === 'ckks') {
    return `Scale 2^${params.scaleBits} (scale bits ${params.scaleBits}): about ${bits.trim()} bits of precision after the point.`
  }
  return `Plain modulus: a ${bits.trim()}-bit batching prime; values from −2^${Number(bits) - 1} to 2^${Number(bits) - 1}.`
}

/**
 * The parameter assistant: from what the user needs (multiplications in a row, slots,
 * plaintext bits or CKKS precision, security) to he-core's `suggestParams` choice with
 * its reasons, and every unmet need listed at once; one button fills the form with it.
 * It offers the form's scheme (BFV, BGV or CKKS) and follows the form when its scheme
 * changes; its own switch picks another without touching the form.
 */
export function ParamsAssistant() {
  const sandbox = useSandbox()
  const formScheme = useWorkspace().draft.scheme
  const id = useId()
  const [draft, setDraft] = useState<NeedsDraft>({
    scheme: formScheme,
    depth: '2',
    slots: '8',
    bits: '20',
    security: 'tc128',
  })
  const [fillError, setFillError] = useState<HeError>()
  useEffect(() => {
    setFillError(undefined)
    setDraft((current) => (current.scheme === formScheme ? current : { ...current, scheme: formScheme }))
  }, [formScheme])
  const result = suggestParams(needsOf(draft))
  const change = (update: Partial<NeedsDraft>) => {
    setFillError(undefined)
    setDraft((current) => ({ ...current, ...update }))
  }
  const use = () => {
    if (!result.ok) return
    // suggestParams and the form share one rule (he-core's modulusProblems), so this
    // cannot throw; if a rule ever drifts, say so on the page instead of failing silently.
    try {
      const filled = draftOf(result.params)
      sandbox.workspace.update((state) => ({ ...state, draft: filled }))
      setFillError(undefined)
    } catch (error) {
      setFillError(toHeError(error))
    }
  }
  const invalid = (field: keyof ParamsNeeds) => !result.ok && result.problems.some((p) => p.field === field)
  const ckks = draft.scheme === 'ckks'
  const bitsField = ckks ? 'precisionBits' : 'plainBits'

  return (
    <section className="card assistant" aria-label="Parameter assistant" data-testid="params-assistant">
      <h2>Suggest parameters</h2>
      <p className="card-intro">Say what you need; the assistant picks the smallest parameters that hold it.</p>
      <fieldset className="field">
        <legend className="field-label">Values</legend>
        <Segmented
          name="assistant-scheme"
          value={draft.scheme}
          options={[
            { value: 'bfv', label: 'Whole numbers (BFV)' },
            { value: 'bgv', label: 'Whole numbers (BGV)' },
            { value: 'ckks', label: 'Real numbers (CKKS)' },
          ]}
          onChange={(scheme) => change({ scheme })}
        />
      </fieldset>
      <div className="assistant-grid">
        <label className="field-label" htmlFor={`${id}-depth`}>
          {ASSISTANT_LABELS.depth}
        </label>
        <input
          id={`${id}-depth`}
          className="mono input-tiny"
          inputMode="numeric"
          value={draft.depth}
          aria-invalid={invalid('depth')}
          onChange={(event) => change({ depth: event.target.value })}
        />
        <label className="field-label" htmlFor={`${id}-slots`}>
          {ASSISTANT_LABELS.slots}
        </label>
        <input
          id={`${id}-slots`}
          className="mono input-short"
          inputMode="numeric"
          value={draft.slots}
          aria-invalid={invalid('slots')}
          onChange={(event) => change({ slots: event.target.value })}
        />
        <label className="field-label" htmlFor={`${id}-bits`}>
          {ckks ? ASSISTANT_LABELS.precisionBits : ASSISTANT_LABELS.plainBits}
        </label>
        <input
          id={`${id}-bits`}
          className="mono input-tiny"
          inputMode="numeric"
          value={draft.bits}
          aria-invalid={invalid(bitsField)}
          onChange={(event) => change({ bits: event.target.value })}
        />
        <label className="field-label" htmlFor={`${id}-security`}>
          {ASSISTANT_LABELS.security}
        </label>
        <select
          id={`${id}-security`}
          value={draft.security}
          onChange={(event) => change({ security: event.target.value as ParamsNeeds['security'] })}
        >
          {SANDBOX_SECURITY_LEVELS.map((level) => (
            <option key={level} value={level}>
              {level.slice(2)}-bit
            </option>
          ))}
        </select>
      </div>
      {result.ok ? (
        <div data-testid="assistant-suggestion">
          <p className="mono">
            {result.params.scheme.toUpperCase()}, n = {result.params.polyModulusDegree}, coefficient modulus [
            {result.params.coeffModulus.join(', ')}] ({result.totalBits} of {result.maxBits} bits)
          </p>
          <p data-testid="assistant-values-line">{valuesLine(result.params, draft.bits)}</p>
          <ul className="assistant-reasons">
            {result.reasons.map((reason) => (
              <li key={reason}>{assistantReason(reason)}</li>
            ))}
          </ul>
          <button type="button" className="button-small" onClick={use}>
            Fill the form with this suggestion
          </button>
          {fillError ? <ErrorNotice error={fillError} title="The form could not take this suggestion" /> : null}
        </div>
      ) : (
        <ul className="field-error assistant-problems" data-testid="assistant-problems">
          {result.problems.map((problem) => (
            <li key={`${problem.field}:${problem.message}`}>{assistantProblem(problem)}</li>
          ))}
        </ul>
      )}
    </section>
  )
}

import { describeParams, type HeError, normalizeSteps, parseParams } from '@sealbox/he-core'
import { useEffect, useMemo, useRef, useState } from 'react'
import { LossWarning, SecretKeyDownloadButton } from '../../app/LossWarning.tsx'
import { useActivity, useSandbox, useWorkspace } from '../../app/SandboxContext.tsx'
import { generateKeys, type KeyChoice } from '../../sandbox/actions/keyActions.ts'
import { ConfirmNotice } from '../../ui/ConfirmNotice.tsx'
import { ErrorNotice } from '../../ui/ErrorNotice.tsx'
import { FieldError } from '../../ui/FieldError.tsx'
import { formatBytes } from '../../ui/format.ts'
import { Segmented } from '../../ui/Segmented.tsx'
import { checkPipeline } from '../../workspace/pipeline.ts'
import { type LossOptions, replacingLabel } from '../../workspace/workspaceLosses.ts'

type GaloisMode = 'none' | 'powerOfTwo' | 'steps'

/** Galois steps proposed when the pipeline rotates nothing: one slot either way. */
const DEFAULT_STEPS = '1, -1'

/** Above this, generation takes long enough (and the keys are big enough) to ask first. */
const LARGE_KEYS_BYTES = 64 * 2 ** 20

/** A new secret key drops the keys and the ciphertexts; plaintexts and the pipeline stay. */
const NEW_SECRET_KEY_LOSSES: LossOptions = { pipeline: false, plaintexts: false }

function parseSteps(text: string, n: number): { ok: true; steps: number[] } | { ok: false; message: string } {
  const parts = text
    .split(/[\s,;]+/)
    .map((p) => p.trim())
    .filter(Boolean)
  if (parts.length === 0) return { ok: false, message: 'List the rotation steps, e.g. 1, 2, -1 (0 = swap the rows)' }
  const steps: number[] = []
  for (const part of parts) {
    if (!/^[+-]?\d+$/.test(part)) return { ok: false, message: `"${part}" is not a whole number of steps` }
    steps.push(Number(part))
  }
  try {
    return { ok: true, steps: normalizeSteps(n, steps) }
  } catch (error) {
    return { ok: false, message: (error as HeError).message }
  }
}

/**
 * Chooses and generates keys: always a secret/public pair, plus exactly the
 * evaluation keys asked for, with their estimated size shown before any work.
 */
export function KeyGenerator() {
  const sandbox = useSandbox()
  const state = useWorkspace()
  const { applied, keys } = state
  const { job } = useActivity()
  const [relin, setRelin] = useState(true)
  const [galoisMode, setGaloisMode] = useState<GaloisMode>('steps')
  /** The steps as typed; until then the form proposes what the pipeline needs. */
  const [typedSteps, setStepsText] = useState<string>()
  const [seeded, setSeeded] = useState(false)
  const [fresh, setFresh] = useState(false)
  const [error, setError] = useState<HeError>()
  const [confirmLarge, setConfirmLarge] = useState(false)
  const [confirmNewSecret, setConfirmNewSecret] = useState(false)
  const newSecretPrompt = useRef<HTMLDivElement>(null)

  useEffect(() => {
    if (confirmNewSecret) newSecretPrompt.current?.focus()
  }, [confirmNewSecret])

  const facts = useMemo(() => (applied ? describeParams(parseParams(applied.input)) : undefined), [applied])
  const pipelineSteps = useMemo(() => checkPipeline(state).analysis?.keyGenSteps ?? [], [state])
  const proposed = pipelineSteps.length > 0 ? pipelineSteps.join(', ') : DEFAULT_STEPS
  const stepsText = typedSteps ?? proposed
  if (!applied || !facts) return null
  const n = applied.input.polyModulusDegree
  const steps = galoisMode === 'steps' ? parseSteps(stepsText, n) : undefined
  const keySwitching = facts.keySwitching
  const stepCount =
    galoisMode === 'powerOfTwo' ? facts.sizes.galoisKeysDefaultCount : steps?.ok ? steps.steps.length : 0
  const galoisBytes = (facts.sizes.galoisKeyPerStep * stepCount) / (seeded ? 2 : 1)
  const relinBytes = seeded ? facts.sizes.relinKeysSeeded : facts.sizes.relinKeys
  const total =
    facts.sizes.secretKey +
    (seeded ? facts.sizes.publicKeySeeded : facts.sizes.publicKey) +
    (relin && keySwitching ? relinBytes : 0) +
    (galoisMode !== 'none' && keySwitching ? galoisBytes : 0)
  const large = total > LARGE_KEYS_BYTES
  const invalid = galoisMode === 'steps' && keySwitching && steps !== undefined && !steps.ok
  const hasSecret = keys.secretKey !== undefined

  const choice = (): KeyChoice => ({
    freshSecretKey: fresh || !hasSecret,
    relin: relin && keySwitching,
    galois:
      !keySwitching || galoisMode === 'none'
        ? false
        : galoisMode === 'powerOfTwo'
          ? 'powerOfTwo'
          : { steps: steps?.ok ? steps.steps : [] },
    seeded,
  })

  const run = async () => {
    setConfirmLarge(false)
    setConfirmNewSecret(false)
    setError(undefined)
    const outcome = await generateKeys(sandbox, choice())
    if (!outcome.ok && outcome.error.code !== 'CANCELLED') setError(outcome.error)
  }

  return (
    <form
      className="card"
      aria-label="Generate keys"
      onSubmit={(event) => {
        event.preventDefault()
        if (hasSecret && fresh) setConfirmNewSecret(true)
        else if (large) setConfirmLarge(true)
        else void run()
      }}
    >
      <h2>Generate keys</h2>
      <p className="card-intro">
        The secret key never leaves this browser unless you download it. Public and evaluation keys are what a server
        needs.
      </p>

      {hasSecret ? (
        <fieldset className="field">
          <legend className="field-label">Secret key</legend>
          <Segmented
            name="secret"
            value={fresh ? 'fresh' : 'keep'}
            options={[
              { value: 'keep', label: 'Keep the current one' },
              { value: 'fresh', label: 'Make a new one' },
            ]}
            onChange={(value) => setFresh(value === 'fresh')}
          />
          {fresh ? (
            <p className="field-help">A new secret key cannot decrypt your current ciphertexts: they are removed.</p>
          ) : null}
        </fieldset>
      ) : null}

      <div className="field">
        <label className="checkbox-label">
          <input
            type="checkbox"
            checked={relin && keySwitching}
            disabled={!keySwitching}
            onChange={(event) => setRelin(event.target.checked)}
          />
          Relinearization keys
        </label>
        <p className="field-help checkbox-help">
          About {formatBytes(relinBytes)}. Needed to relinearize after ciphertext × ciphertext.
        </p>
      </div>

      <fieldset className="field">
        <legend className="field-label">Galois (rotation) keys</legend>
        <Segmented
          name="galois"
          value={keySwitching ? galoisMode : 'none'}
          disabled={!keySwitching}
          options={[
            { value: 'none', label: 'None' },
            { value: 'steps', label: 'Chosen steps' },
            { value: 'powerOfTwo', label: `Power-of-two set (${facts.sizes.galoisKeysDefaultCount})` },
          ]}
          onChange={setGaloisMode}
        />
        {galoisMode === 'steps' && keySwitching ? (
          <>
            <label className="visually-hidden" htmlFor="galois-steps">
              Rotation steps
            </label>
            <input
              id="galois-steps"
              className="mono"
              value={stepsText}
              aria-invalid={invalid}
              onChange={(event) => setStepsText(event.target.value)}
            />
            {pipelineSteps.length > 0 ? (
              <p className="field-help" data-testid="galois-proposal">
                {stepsText === proposed
                  ? `The pipeline's rotations: ${proposed}.`
                  : `The pipeline rotates by ${proposed}: `}
                {stepsText === proposed ? null : (
                  <button type="button" className="button-small" onClick={() => setStepsText(undefined)}>
                    Use the pipeline's steps
                  </button>
                )}
              </p>
            ) : null}
            <p className="field-help">
              One key per step: positive rotates left, negative right,{' '}
              {applied.input.scheme === 'ckks' ? '0 conjugates' : '0 swaps the two rows'}. Steps without a key are
              composed from others when possible.
            </p>
            <FieldError message={steps && !steps.ok ? steps.message : undefined} />
          </>
        ) : null}
        {galoisMode === 'powerOfTwo' && keySwitching ? (
          <p className="field-help">SEAL's default set: ±1, ±2, ±4, … and the row swap; any rotation by composition.</p>
        ) : null}
        {galoisMode !== 'none' && keySwitching ? (
          <p className={galoisBytes > LARGE_KEYS_BYTES ? 'field-error' : 'field-help'}>
            {stepCount} key{stepCount === 1 ? '' : 's'} · about {formatBytes(galoisBytes)}
          </p>
        ) : null}
        {!keySwitching ? (
          <p className="field-help">These parameters have a single prime: no relinearization or rotations.</p>
        ) : null}
      </fieldset>

      <div className="field">
        <label className="checkbox-label">
          <input type="checkbox" checked={seeded} onChange={(event) => setSeeded(event.target.checked)} />
          Seeded files (half the bytes)
        </label>
        <p className="field-help checkbox-help">
          Public and evaluation keys are saved with a seed in place of random data: half the size to store or upload.
          SEAL makes the seeded form separately, so generation takes longer.
        </p>
      </div>

      <div className="actions">
        <button type="submit" className="button-primary" disabled={invalid || job !== undefined}>
          Generate keys
        </button>
        <span className="muted">Total about {formatBytes(total)}</span>
      </div>

      {confirmNewSecret && hasSecret && fresh ? (
        <div ref={newSecretPrompt} tabIndex={-1} data-testid="new-secret-key-prompt">
          <ConfirmNotice
            label="Replace the secret key?"
            title="A new secret key cannot decrypt what the current one encrypted."
            before={<SecretKeyDownloadButton />}
            choices={[
              {
                label: replacingLabel('Make a new secret key', state, { ...NEW_SECRET_KEY_LOSSES, verb: 'drops' }),
                tone: 'danger',
                onChoose: () => {
                  setConfirmNewSecret(false)
                  if (large) setConfirmLarge(true)
                  else void run()
                },
              },
              { label: 'Keep the current secret key', onChoose: () => setConfirmNewSecret(false) },
            ]}
          >
            <LossWarning lead="A new secret key removes" options={NEW_SECRET_KEY_LOSSES} testId="new-secret-key-loss" />
            <p>The pipeline and any plaintexts stay.</p>
          </ConfirmNotice>
        </div>
      ) : null}
      {confirmLarge ? (
        <div className="notice notice-warning" role="alertdialog" aria-label="Generate large keys?">
          <div className="notice-body">
            <strong>These keys are about {formatBytes(total)}.</strong>
            <p>
              Generating them takes a while and uses that much memory in this tab (keys over{' '}
              {formatBytes(LARGE_KEYS_BYTES)} are kept only until the page closes). You can cancel while it runs.
            </p>
            <div className="actions">
              <button type="button" className="button-primary" onClick={() => void run()}>
                Generate anyway
              </button>
              <button type="button" onClick={() => setConfirmLarge(false)}>
                Back
              </button>
            </div>
          </div>
        </div>
      ) : null}
      {error ? (
        <ErrorNotice error={error} title="Keys were not generated" onDismiss={() => setError(undefined)} />
      ) : null}
    </form>
  )
}

import { describeParams, HeError, parseParams } from '@sealbox/he-core'
import { useMemo, useState } from 'react'
import { useActivity, useSandbox, useWorkspace } from '../../app/SandboxContext.tsx'
import { createVariable, nameInVariableFile, uploadVariable } from '../../sandbox/actions/variableActions.ts'
import { ConfirmNotice } from '../../ui/ConfirmNotice.tsx'
import { ErrorNotice } from '../../ui/ErrorNotice.tsx'
import { FieldError } from '../../ui/FieldError.tsx'
import { FileButton } from '../../ui/FileButton.tsx'
import { formatInteger } from '../../ui/format.ts'
import { Segmented } from '../../ui/Segmented.tsx'
import { explainsItself, explainUploadError } from '../../ui/uploadErrors.ts'
import { freeName, nameProblem, nextVariableName } from '../../workspace/names.ts'
import { ckksValueBound, parseValues } from '../../workspace/parseValues.ts'
import type { VariableEntry } from '../../workspace/workspaceState.ts'

/** Creates a variable from typed numbers (validated as you type), or loads one from a file. */
export function NewVariableForm() {
  const sandbox = useSandbox()
  const { applied, variables, keys } = useWorkspace()
  const { job } = useActivity()
  const taken = useMemo(() => new Set(variables.map((v) => v.name)), [variables])
  const [name, setName] = useState('')
  const [kind, setKind] = useState<VariableEntry['kind']>('ciphertext')
  const [text, setText] = useState('1, 2, 3, 4')
  const [error, setError] = useState<HeError>()
  const [touched, setTouched] = useState(false)
  /** A file whose variable name is taken, waiting for the user's choice. */
  // `typed`: the name came from the Name box, not from inside the file.
  const [clash, setClash] = useState<{ file: File; name: string; typed: boolean }>()
  const facts = useMemo(() => (applied ? describeParams(parseParams(applied.input)) : undefined), [applied])
  if (!applied || !facts) return null

  const effectiveName = name === '' && !touched ? nextVariableName(taken) : name
  const problem = nameProblem(effectiveName, taken)
  const limits = {
    scheme: applied.input.scheme,
    slotCount: facts.slotCount,
    ...(applied.plainModulus === undefined ? {} : { plainModulus: applied.plainModulus }),
    ckksBound: ckksValueBound(facts),
  }
  const parsed = parseValues(text, limits)
  const needsKeys = kind === 'ciphertext' && !keys.secretKey
  const ckks = applied.input.scheme === 'ckks'
  const half = applied.plainModulus === undefined ? undefined : (applied.plainModulus - 1n) / 2n

  const submit = async () => {
    if (!parsed.ok || problem || needsKeys) return
    setError(undefined)
    const outcome = await createVariable(sandbox, { name: effectiveName, kind, values: parsed.values, text })
    if (outcome.ok) {
      setName('')
      setTouched(false)
    } else setError(outcome.error)
  }

  const load = async (file: File, as?: string) => {
    setClash(undefined)
    setError(undefined)
    const outcome = await uploadVariable(sandbox, file, as)
    if (!outcome.ok) setError(explainUploadError(outcome.error, 'a plaintext or ciphertext'))
    else if (as !== undefined && as === typedName) {
      setName('')
      setTouched(false)
    }
  }
  // What the user typed in the Name box: an upload takes that name, as Encode and encrypt does.
  const typedName = touched && name !== '' ? name : undefined
  // A same-named upload would silently replace the variable (and what it was made from).
  const upload = async (file: File) => {
    setClash(undefined)
    setError(undefined)
    if (typedName !== undefined) {
      if (taken.has(typedName)) setClash({ file, name: typedName, typed: true })
      else if (problem) setError(new HeError('INVALID_INPUT', `${problem} (Name)`))
      else await load(file, typedName)
      return
    }
    const inside = await nameInVariableFile(file)
    if (inside !== undefined && taken.has(inside)) setClash({ file, name: inside, typed: false })
    else await load(file)
  }
  const alternative = clash ? freeName(clash.name, taken) : ''

  return (
    <form
      className="card"
      aria-label="New variable"
      onSubmit={(event) => {
        event.preventDefault()
        void submit()
      }}
    >
      <h2>New variable</h2>
      <div className="field-row">
        <div className="field grow">
          <label className="field-label" htmlFor="variable-name">
            Name
          </label>
          <input
            id="variable-name"
            className="mono"
            value={effectiveName}
            spellCheck={false}
            autoComplete="off"
            aria-invalid={problem !== undefined}
            onChange={(event) => {
              setTouched(true)
              setName(event.target.value)
            }}
          />
        </div>
        <fieldset className="field">
          <legend className="field-label">Kind</legend>
          <Segmented
            name="kind"
            value={kind}
            options={[
              { value: 'ciphertext', label: 'Ciphertext' },
              { value: 'plaintext', label: 'Plaintext' },
            ]}
            onChange={setKind}
          />
        </fieldset>
      </div>
      <FieldError message={problem} />

      <div className="field">
        <label className="field-label" htmlFor="variable-values">
          Values
        </label>
        <textarea
          id="variable-values"
          value={text}
          rows={3}
          spellCheck={false}
          aria-invalid={!parsed.ok}
          aria-describedby="variable-values-help"
          onChange={(event) => setText(event.target.value)}
        />
        <p className="field-help" id="variable-values-help">
          {ckks
            ? `Real numbers, separated by commas or spaces; up to ${formatInteger(facts.slotCount)} slots.`
            : `Whole numbers from ${half !== undefined ? formatInteger(-half) : '−t/2'} to ${
                half !== undefined ? formatInteger(half) : 't/2'
              }, separated by commas or spaces; up to ${formatInteger(facts.slotCount)} slots.`}{' '}
          {parsed.ok ? `${parsed.values.length} given; the other slots are 0.` : ''}
        </p>
        <FieldError message={parsed.ok ? undefined : parsed.message} />
      </div>

      {needsKeys ? (
        <p className="field-error">
          Encrypting needs keys: <a href="#keys">generate them on the Keys panel</a>, or make a plaintext.
        </p>
      ) : null}

      <div className="actions">
        <button
          type="submit"
          className="button-primary"
          disabled={!parsed.ok || problem !== undefined || needsKeys || job !== undefined}
        >
          {kind === 'ciphertext' ? 'Encode and encrypt' : 'Encode'}
        </button>
        <span className="muted">or</span>
        <FileButton
          label="Upload a file…"
          testId="upload-variable"
          disabled={job !== undefined}
          onFile={(f) => void upload(f)}
        />
      </div>
      <p className="field-help">
        An uploaded file takes the Name above when you typed one, else the name it was saved with.
      </p>
      {clash ? (
        <ConfirmNotice
          label={`Replace variable ${clash.name}?`}
          title={`A variable called '${clash.name}' already exists.`}
          choices={[
            { label: `Replace ${clash.name}`, tone: 'danger', onChoose: () => void load(clash.file, clash.name) },
            { label: `Load as ${alternative}`, tone: 'primary', onChoose: () => void load(clash.file, alternative) },
            { label: 'Cancel', onChoose: () => setClash(undefined) },
          ]}
        >
          <p>
            {clash.typed
              ? `You named the upload of ${clash.file.name} '${clash.name}'.`
              : `${clash.file.name} holds a value named '${clash.name}'.`}{' '}
            Replacing loses the current '{clash.name}'
            {variables.find((v) => v.name === clash.name)?.origin === 'values'
              ? ' and the numbers it was typed from'
              : ''}
            ; an uploaded value cannot be rebuilt by an exported program.
          </p>
        </ConfirmNotice>
      ) : null}
      {error ? (
        <ErrorNotice
          error={error}
          hint={explainsItself(error) ? null : undefined}
          onDismiss={() => setError(undefined)}
        />
      ) : null}
    </form>
  )
}

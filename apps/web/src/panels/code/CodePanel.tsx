import { HeError, type WorkspaceInput } from '@sealbox/he-core'
import {
  type CodegenOptions,
  codeFileName,
  generateCode,
  generatePython,
  PYTHON_FILE_NAME,
  SEAL_PYTHON_VERSION,
} from '@sealbox/he-core/codegen'
import { useMemo, useState } from 'react'
import { useSandbox, useWorkspace } from '../../app/SandboxContext.tsx'
import { useNoteProgramExported } from '../../lesson/LessonContext.tsx'
import { ErrorNotice } from '../../ui/ErrorNotice.tsx'
import { downloadFile } from '../../ui/files.ts'
import { Segmented } from '../../ui/Segmented.tsx'
import { defaultPrint, leftOutReason, unrebuildable, workspaceSpecOf } from '../../workspace/workspaceSpecOf.ts'
import { NeedsContext } from '../NeedsContext.tsx'
import { programPromise } from './programPromise.ts'

type Generated = { code: string; fileName: string } | { error: HeError }
/** The program's language: node-seal TypeScript / JavaScript, or Python on the seal-python wheel. */
type Language = CodegenOptions['language'] | 'python'

function generate(
  spec: WorkspaceInput | undefined,
  flavour: CodegenOptions['flavour'],
  language: Language,
  problem?: string,
): Generated {
  if (!spec) return { error: new HeError('INVALID_INPUT', problem ?? 'Nothing to generate yet.') }
  try {
    if (language === 'python') return { code: generatePython(spec), fileName: PYTHON_FILE_NAME }
    const options = { flavour, language }
    return { code: generateCode(spec, options), fileName: codeFileName(options) }
  } catch (error) {
    return { error: error instanceof HeError ? error : new HeError('INTERNAL', String(error)) }
  }
}

/** Code: he-core's generateCode turns the workspace into a runnable node-seal program. */
export function CodePanel() {
  return (
    <NeedsContext what="Generated programs">
      <CodeView />
    </NeedsContext>
  )
}

function CodeView() {
  const state = useWorkspace()
  const sandbox = useSandbox()
  const [flavour, setFlavour] = useState<CodegenOptions['flavour']>('node')
  const [language, setLanguage] = useState<Language>('ts')
  const [copied, setCopied] = useState(false)
  const noteExported = useNoteProgramExported()
  const lost = useMemo(() => [...unrebuildable(state)], [state])
  const uploads = lost.filter((name) => leftOutReason(state, name) === 'upload')
  const fromResults = lost.filter((name) => leftOutReason(state, name) === 'result')
  const candidates = useMemo(() => {
    // Only what the program can define: an uploaded value's numbers are not known here.
    return [
      ...new Set([
        ...state.pipeline.map((e) => e.out),
        ...state.variables.filter((v) => v.origin !== 'pipeline' && !lost.includes(v.name)).map((v) => v.name),
      ]),
    ]
  }, [state, lost])
  // The ticks are the workspace's (saved, kept across pipeline changes for the names that remain).
  const print = (state.print ?? defaultPrint(state)).filter((name) => candidates.includes(name))
  // Pure and fast (no SEAL): regenerated on every render.
  const outcome = workspaceSpecOf(state, print)
  const generated = generate(outcome.spec, flavour, language, outcome.problem)
  const python = language === 'python'
  const promise = programPromise(state, print)

  const toggle = (name: string) => {
    const next = print.includes(name) ? print.filter((n) => n !== name) : [...print, name]
    sandbox.workspace.update((current) => ({ ...current, print: next }))
  }
  const copy = async () => {
    if (!('code' in generated)) return
    await navigator.clipboard.writeText(generated.code)
    noteExported()
    setCopied(true)
    setTimeout(() => setCopied(false), 2000)
  }

  return (
    <div className="panel-grid panel-grid-code">
      <section className="card" aria-label="Program options">
        <h2>Export a program</h2>
        <p className="card-intro">
          A self-contained program that rebuilds this workspace with node-seal 7 (or native SEAL from Python) —
          parameters, keys, variables, every pipeline step — and prints the decrypted results. It does not need sealbox.
        </p>
        <fieldset className="field">
          <legend className="field-label">Language</legend>
          <Segmented
            name="language"
            value={language}
            options={[
              { value: 'ts', label: 'TypeScript' },
              { value: 'js', label: 'JavaScript' },
              { value: 'python', label: 'Python' },
            ]}
            onChange={setLanguage}
          />
          {python ? (
            <p className="field-help" data-testid="python-help">
              Native Microsoft SEAL 4.1 through the seal-python wheel: pip install seal-python=={SEAL_PYTHON_VERSION}{' '}
              numpy, then python {PYTHON_FILE_NAME}. It prints the same lines.
            </p>
          ) : null}
        </fieldset>
        <fieldset className="field" hidden={python}>
          <legend className="field-label">Runs in</legend>
          <Segmented
            name="flavour"
            value={flavour}
            options={[
              { value: 'node', label: 'Node.js' },
              { value: 'browser', label: 'Browser' },
            ]}
            onChange={setFlavour}
          />
          <p className="field-help">
            {flavour === 'node'
              ? 'An ES module script: npm install node-seal@7, then run it with Node 22.19 or newer.'
              : 'An ES module exporting main(print), for a page or a module Web Worker (Vite, esbuild…).'}
          </p>
        </fieldset>
        <fieldset className="field">
          <legend className="field-label">Print</legend>
          {candidates.length === 0 ? (
            <p className="muted">Create variables or pipeline steps first.</p>
          ) : (
            <div className="print-choices">
              {candidates.map((name) => (
                <label key={name} className="checkbox-label mono">
                  <input type="checkbox" checked={print.includes(name)} onChange={() => toggle(name)} />
                  {name}
                </label>
              ))}
            </div>
          )}
        </fieldset>
        {lost.length > 0 ? (
          <div className="field-error" data-testid="left-out">
            {uploads.length > 0 ? (
              <p>
                Left out: {uploads.join(', ')} — uploaded, so the numbers{' '}
                {uploads.length === 1 ? 'it holds' : 'they hold'} are not known here: a program cannot rebuild or print{' '}
                {uploads.length === 1 ? 'it' : 'them'}, nor run steps that read {uploads.length === 1 ? 'it' : 'them'}.
              </p>
            ) : null}
            {fromResults.length > 0 ? (
              <p>
                Left out: {fromResults.join(', ')} — made on the Variables panel from a pipeline result; the program
                prints the result itself (choose it under Print).
              </p>
            ) : null}
          </div>
        ) : null}
        {promise.kind === 'stops' ? (
          <div className="field" data-testid="program-stops">
            <p className="field-label">It stops at step {promise.step} and prints nothing</p>
            <p className="field-help">
              {promise.exhausted
                ? flavour === 'node'
                  ? 'Like the sandbox, the program checks every result’s noise budget and refuses to print garbage. It writes this line to stderr and exits with code 1:'
                  : 'Like the sandbox, the module checks every result’s noise budget and refuses to print garbage: main(print) throws an Error named NoiseBudgetExhausted whose message is this line:'
                : flavour === 'node'
                  ? 'The sandbox stopped there, so the program fails there too (exit code 1). The sandbox said:'
                  : 'The sandbox stopped there, so main(print) throws there too. The sandbox said:'}
            </p>
            {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard (axe: scrollable-region-focusable) */}
            <pre className="expected expected-stop" data-testid="expected-stop" tabIndex={0}>
              {promise.sentence}
            </pre>
          </div>
        ) : promise.kind === 'prints' ? (
          <div className="field">
            <p className="field-label">It prints (as computed here)</p>
            {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard (axe: scrollable-region-focusable) */}
            <pre className="expected" data-testid="expected-output" tabIndex={0}>
              {promise.lines.join('\n')}
            </pre>
            {state.applied?.input.scheme === 'ckks' ? (
              <p className="field-help">CKKS is approximate: the last digits may differ from run to run.</p>
            ) : null}
          </div>
        ) : (
          <p className="field-help">Run the pipeline (Functions) to see here what the program will print.</p>
        )}
      </section>

      <section className="card code-card" aria-label="Generated program">
        {'code' in generated ? (
          <>
            <div className="card-header">
              <h2 className="mono">{generated.fileName}</h2>
              <div className="actions">
                <button
                  type="button"
                  className="button-small"
                  onClick={() => void copy()}
                  aria-label={`Copy ${generated.fileName}`}
                >
                  {copied ? 'Copied' : 'Copy'}
                </button>
                <button
                  type="button"
                  className="button-small"
                  onClick={() => {
                    downloadFile(generated.fileName, generated.code, 'text/plain')
                    noteExported()
                  }}
                  aria-label={`Download ${generated.fileName}`}
                >
                  Download
                </button>
              </div>
            </div>
            {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard (axe: scrollable-region-focusable) */}
            <pre className="code" data-testid="generated-code" tabIndex={0}>
              <code>{generated.code}</code>
            </pre>
          </>
        ) : (
          <ErrorNotice error={generated.error} title="No program yet" />
        )}
      </section>
    </div>
  )
}

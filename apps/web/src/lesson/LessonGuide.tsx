import { useEffect, useId, useRef, useState } from 'react'
import type { PanelId } from '../app/panels.ts'
import { useWorkspace } from '../app/SandboxContext.tsx'
import { useLessonProgress } from './LessonContext.tsx'
import { LESSON_STEPS } from './lessonSteps.ts'
import { pointAt } from './pointAt.ts'

let focusRequested = false

/** Asks the lesson card about to open to take the focus (it was opened by a click, not restored by a reload). */
export function requestLessonFocus(): void {
  focusRequested = true
}

function takeFocusRequest(): boolean {
  const requested = focusRequested
  focusRequested = false
  return requested
}

/** The id of the header's Lessons button: focus returns there when the lesson closes. */
export const LESSONS_BUTTON_ID = 'lessons-button'

/**
 * The first lesson, as a card above the open panel. Closed, on a first visit with an
 * empty workspace, it offers itself; open, it shows one step: why, what to do (checked
 * against the workspace as the learner works in the panels), "Show me" for the next
 * control, and Back / Next. It never blocks the page: the sandbox stays usable around it.
 */
export function LessonGuide({ onOpenPanel }: { onOpenPanel: (panel: PanelId) => void }) {
  const [progress, change] = useLessonProgress()
  const state = useWorkspace()
  if (progress.open) return <LessonCard onOpenPanel={onOpenPanel} />
  if (progress.offerAnswered || state.applied) return null
  return (
    <section className="lesson lesson-offer" aria-labelledby="lesson-offer-title" data-testid="lesson-offer">
      <h2 id="lesson-offer-title">New to homomorphic encryption?</h2>
      <p>
        A first lesson in {LESSON_STEPS.length} short steps, done right here on your own workspace: make a context,
        multiply encrypted vectors, watch the noise budget run out, fix it, rotate and export a program.
      </p>
      <div className="actions">
        <button
          type="button"
          className="button-primary"
          onClick={() => {
            requestLessonFocus()
            change((p) => ({ ...p, open: true, offerAnswered: true, step: 0 }))
          }}
        >
          Start the first lesson
        </button>
        <button type="button" onClick={() => change((p) => ({ ...p, offerAnswered: true }))}>
          Not now
        </button>
      </div>
      <p className="muted lesson-later">The Lessons button at the top opens it at any time.</p>
    </section>
  )
}

function LessonCard({ onOpenPanel }: { onOpenPanel: (panel: PanelId) => void }) {
  const [progress, change] = useLessonProgress()
  const state = useWorkspace()
  const [notFound, setNotFound] = useState<string>()
  const heading = useRef<HTMLHeadingElement>(null)
  const budgetId = useId()
  const index = Math.min(progress.step, LESSON_STEPS.length - 1)
  const step = LESSON_STEPS[index]
  const mounted = useRef(false)
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on every change of step (index), which it does not read
  useEffect(() => {
    setNotFound(undefined)
    // A new step, or the lesson opened by a click (not by a reload): keyboard and screen readers start at its title.
    if (mounted.current || takeFocusRequest()) heading.current?.focus()
    mounted.current = true
  }, [index])
  if (!step) return null
  const checks = step.checks({ state, exported: progress.exported, budgetAnswer: progress.budgetAnswer })
  const done = checks.every((check) => check.done)
  const next = checks.find((check) => !check.done)
  const last = index === LESSON_STEPS.length - 1

  const showMe = async () => {
    if (!next) return
    setNotFound(undefined)
    onOpenPanel(next.target.panel)
    const found = await pointAt(next.target)
    if (!found) setNotFound(`${capitalized(next.target.name)} is not there yet: do the earlier steps first.`)
  }
  const close = () => {
    change((p) => ({ ...p, open: false }))
    document.getElementById(LESSONS_BUTTON_ID)?.focus()
  }

  return (
    <section className="lesson" aria-labelledby="lesson-title" data-testid="lesson" data-lesson-step={step.id}>
      <div className="lesson-header">
        <p className="lesson-count" data-testid="lesson-count">
          First lesson · step {index + 1} of {LESSON_STEPS.length}
        </p>
        <button type="button" className="button-small" onClick={close}>
          Close the lesson
        </button>
      </div>
      <h2 id="lesson-title" ref={heading} tabIndex={-1}>
        {step.title}
      </h2>
      <p className="lesson-why">{step.why}</p>
      <ul className="lesson-checks" aria-label="To do">
        {checks.map((check) => (
          <li key={check.label} className={check.done ? 'lesson-check-done' : undefined} data-testid="lesson-check">
            <span className="lesson-mark" aria-hidden="true">
              {check.done ? '✓' : '○'}
            </span>
            <span className="visually-hidden">{check.done ? 'Done: ' : 'To do: '}</span>
            {check.label}
          </li>
        ))}
      </ul>
      {step.asksBudget ? (
        <div className="field lesson-budget">
          <label className="field-label" htmlFor={budgetId}>
            Bits of noise budget the product has left
          </label>
          <input
            id={budgetId}
            inputMode="numeric"
            autoComplete="off"
            value={progress.budgetAnswer}
            maxLength={20}
            onChange={(event) => {
              const budgetAnswer = event.target.value.slice(0, 20)
              change((p) => ({ ...p, budgetAnswer }))
            }}
          />
          <p className="field-help">Open Chart data under the noise chart on Functions: the Multiply step’s row.</p>
        </div>
      ) : null}
      <div role="status" className="lesson-status" data-testid="lesson-status">
        {done ? (
          <p className="lesson-done">
            {last ? 'Lesson complete. ' : ''}
            {step.doneNote}
          </p>
        ) : notFound ? (
          <p>{notFound}</p>
        ) : null}
      </div>
      <div className="actions lesson-actions">
        {next ? (
          <button type="button" className="button-primary" onClick={() => void showMe()}>
            Show me {next.target.name}
          </button>
        ) : null}
        <button
          type="button"
          disabled={index === 0}
          onClick={() => change((p) => ({ ...p, step: Math.max(0, index - 1) }))}
        >
          Back
        </button>
        {last ? null : (
          <button
            type="button"
            className={done ? 'button-primary' : undefined}
            disabled={!done}
            aria-describedby={done ? undefined : 'lesson-next-help'}
            onClick={() => change((p) => ({ ...p, step: index + 1 }))}
          >
            Next step
          </button>
        )}
      </div>
      {done || last ? null : (
        <p className="muted lesson-next-help" id="lesson-next-help">
          Next step opens once the sandbox shows the {checks.length === 1 ? 'task' : 'tasks'} above done.
        </p>
      )}
    </section>
  )
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}

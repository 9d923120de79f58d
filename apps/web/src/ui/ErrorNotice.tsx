import { HE_ERROR_HINTS, type HeError } from '@sealbox/he-core'
import { formWords } from './formWords.ts'
import { hintUnlessRepeated } from './hintUnlessRepeated.ts'

/**
 * A coded error in plain words: what happened (the message) and what to do (the
 * code's hint, or `hint` when the caller knows better, e.g. for a network failure) —
 * the hint only with what the message does not already say. `hint={null}`: the message
 * already says what to do (an upload error restated by `explainUploadError`), no hint.
 */
export function ErrorNotice({
  error,
  title,
  hint,
  onDismiss,
}: {
  error: HeError
  title?: string
  hint?: string | null
  onDismiss?: () => void
}) {
  const message = formWords(error.message)
  const advice = hint === null ? undefined : (hint ?? hintUnlessRepeated(message, HE_ERROR_HINTS[error.code]))
  return (
    <div className="notice notice-error" role="alert" data-error-code={error.code}>
      <div className="notice-body">
        <strong>{title ?? 'That did not work'}</strong>
        <p className="notice-message">{message}</p>
        {advice ? <p className="notice-hint">{advice}</p> : null}
      </div>
      {onDismiss ? (
        <button
          type="button"
          className="button-ghost"
          onClick={onDismiss}
          aria-label={`Dismiss: ${title ?? 'That did not work'}`}
        >
          ×
        </button>
      ) : null}
    </div>
  )
}

import { HE_ERROR_HINTS, type HeError } from '@sealbox/he-core'
import { formWords } from './formWords.ts'

/**
 * A coded error in plain words: what happened (the message) and what to do (the
 * code's hint, or `hint` when the caller knows better, e.g. for a network failure).
 */
export function ErrorNotice({
  error,
  title,
  hint,
  onDismiss,
}: {
  error: HeError
  title?: string
  hint?: string
  onDismiss?: () => void
}) {
  return (
    <div className="notice notice-error" role="alert" data-error-code={error.code}>
      <div className="notice-body">
        <strong>{title ?? 'That did not work'}</strong>
        <p className="notice-message">{formWords(error.message)}</p>
        <p className="notice-hint">{hint ?? HE_ERROR_HINTS[error.code]}</p>
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

import type { ReactNode } from 'react'

/** One way out of a confirmation: its label and what it does. */
export interface ConfirmChoice {
  label: string
  onChoose: () => void
  /** `danger` for the choice that destroys something. */
  tone?: 'danger' | 'primary' | 'plain'
}

/**
 * An in-page confirmation (never `window.confirm`: it blocks the page, cannot say
 * much, and cannot be styled or tested like the rest): a title, what will happen,
 * and the choices, the safe one last.
 */
export function ConfirmNotice({
  label,
  title,
  children,
  before,
  choices,
}: {
  /** The dialog's accessible name. */
  label: string
  title: ReactNode
  children?: ReactNode
  /** A control shown before the choices (e.g. "Download the secret key first"). */
  before?: ReactNode
  choices: readonly ConfirmChoice[]
}) {
  return (
    <div className="notice notice-warning" role="alertdialog" aria-label={label}>
      <div className="notice-body">
        <strong>{title}</strong>
        {children}
        <div className="actions">
          {before}
          {choices.map((choice) => (
            <button
              key={choice.label}
              type="button"
              className={choice.tone === 'danger' ? 'button-danger' : choice.tone === 'primary' ? 'button-primary' : ''}
              onClick={choice.onChoose}
            >
              {choice.label}
            </button>
          ))}
        </div>
      </div>
    </div>
  )
}

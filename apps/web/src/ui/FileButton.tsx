import { useId, useRef } from 'react'

/** A button that opens the file picker (a real file input underneath, for keyboards and tests). */
export function FileButton({
  label,
  name,
  onFile,
  disabled,
  testId,
  accept = '.sbx,application/octet-stream',
  className = 'button-small',
}: {
  label: string
  /** The button's accessible name when `label` alone is not unique on the page ("Upload…" ×4). */
  name?: string
  onFile: (file: File) => void
  disabled?: boolean
  testId?: string
  accept?: string
  className?: string
}) {
  const id = useId()
  const input = useRef<HTMLInputElement>(null)
  return (
    <>
      <input
        ref={input}
        id={id}
        type="file"
        className="visually-hidden"
        accept={accept}
        tabIndex={-1}
        // The button below is the control people use; the input is only its mechanism.
        aria-hidden="true"
        disabled={disabled}
        data-testid={testId}
        onChange={(event) => {
          const file = event.target.files?.[0]
          event.target.value = ''
          if (file) onFile(file)
        }}
      />
      <button
        type="button"
        className={className}
        disabled={disabled}
        aria-label={name}
        onClick={() => input.current?.click()}
      >
        {label}
      </button>
    </>
  )
}

import { useId, useRef } from 'react'

/** A button that opens the file picker (a real file input underneath, for keyboards and tests). */
export function FileButton({
  label,
  onFile,
  disabled,
  testId,
  accept = '.sbx,application/octet-stream',
  className = 'button-small',
}: {
  label: string
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
        disabled={disabled}
        data-testid={testId}
        onChange={(event) => {
          const file = event.target.files?.[0]
          event.target.value = ''
          if (file) onFile(file)
        }}
      />
      <button type="button" className={className} disabled={disabled} onClick={() => input.current?.click()}>
        {label}
      </button>
    </>
  )
}

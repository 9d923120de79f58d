/** A validation message under a form control (nothing when valid). */
export function FieldError({ message }: { message: string | undefined }) {
  if (!message) return null
  return (
    <p className="field-error" role="alert">
      {message}
    </p>
  )
}

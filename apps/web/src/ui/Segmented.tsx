import { useId } from 'react'

/**
 * A row of mutually exclusive options (native radio inputs, so arrow keys and
 * screen readers work as for any radio group), styled as a segmented control.
 */
export function Segmented<T extends string>({
  name,
  value,
  options,
  onChange,
  disabled,
}: {
  name: string
  value: T
  options: ReadonlyArray<{ value: T; label: string; disabled?: boolean }>
  onChange: (value: T) => void
  disabled?: boolean
}) {
  const groupId = useId()
  return (
    <div className="segmented" role="radiogroup">
      {options.map((option) => {
        const id = `${groupId}-${option.value}`
        return (
          <span key={option.value} className="segmented-item">
            <input
              type="radio"
              id={id}
              name={`${name}-${groupId}`}
              value={option.value}
              checked={option.value === value}
              disabled={disabled || option.disabled}
              onChange={() => onChange(option.value)}
              data-testid={`${name}-${option.value}`}
            />
            <label htmlFor={id}>{option.label}</label>
          </span>
        )
      })}
    </div>
  )
}

import { PROGRAM_OPS, type SchemeName } from '@sealbox/he-core'
import { OP_GROUPS } from './opGroups.ts'

/** The op menu: every program op, grouped; ops the scheme lacks are shown but disabled. */
export function OpSelect({
  id,
  value,
  scheme,
  onChange,
  label,
}: {
  id: string
  value: string
  scheme: SchemeName
  onChange: (op: string) => void
  label: string
}) {
  return (
    <select id={id} aria-label={label} value={value} onChange={(event) => onChange(event.target.value)}>
      {value === '' ? <option value="">Choose an operation…</option> : null}
      {OP_GROUPS.map((group) => (
        <optgroup key={group.label} label={group.label}>
          {group.ops.map(({ op, label: opName }) => {
            const schemes = PROGRAM_OPS[op].schemes
            const supported = schemes.includes(scheme)
            return (
              <option key={op} value={op} disabled={!supported}>
                {opName}
                {supported ? '' : ` (${schemes.map((s) => s.toUpperCase()).join('/')} only)`}
              </option>
            )
          })}
        </optgroup>
      ))}
    </select>
  )
}

import type { HeError } from '@sealbox/he-core'
import { useState } from 'react'
import { formWords } from '../ui/formWords.ts'
import { useActivity, useSandbox } from './SandboxContext.tsx'

/**
 * Shown while another tab owns this workspace (Web Locks lease): this tab is read-only,
 * so it cannot overwrite that tab's newer keys, and "Take over" makes it the owner.
 */
export function ReadOnlyBanner() {
  const sandbox = useSandbox()
  const { lease } = useActivity()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<HeError>()
  if (lease !== 'readOnly') return null
  const takeOver = async () => {
    setBusy(true)
    const outcome = await sandbox.takeOver()
    setBusy(false)
    setError(outcome.ok ? undefined : outcome.error)
  }
  return (
    <div className="banner banner-error" role="alert" data-testid="read-only-banner">
      <span>
        This workspace is open in another tab, which owns it: this tab is read-only, so it cannot overwrite that tab's
        keys or work. Take over to work here (the other tab turns read-only).
        {error ? ` ${formWords(error.message)}` : null}
      </span>
      <button type="button" className="button-small" disabled={busy} onClick={() => void takeOver()}>
        Take over
      </button>
    </div>
  )
}

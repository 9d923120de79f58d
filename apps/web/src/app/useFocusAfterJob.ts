import { useEffect } from 'react'
import { useActivity, useSandbox } from './SandboxContext.tsx'

function usable(element: Element | null | undefined): element is HTMLElement {
  return (
    element instanceof HTMLElement && element !== document.body && element.isConnected && !element.matches(':disabled')
  )
}

/**
 * After a job the control that started it was disabled (busy) or replaced ("Create
 * context" becomes "In use"), and focus fell to <body>: a keyboard user would tab from
 * the top again. Once the render that ends the job is committed, focus goes back to that
 * control, or to what the open panel marks as the next thing to do
 * (`data-focus-after-job`), or to the open panel itself.
 */
export function useFocusAfterJob(): void {
  const sandbox = useSandbox()
  const { job } = useActivity()
  const running = job !== undefined
  useEffect(() => {
    if (running) return
    const before = sandbox.focusBeforeJob
    if (!before) return
    sandbox.focusBeforeJob = null
    // A disabled control still counts as active until the browser's next focus fix-up.
    if (usable(document.activeElement)) return
    const panel = document.querySelector<HTMLElement>('[role="tabpanel"]')
    const next = panel?.querySelector('[data-focus-after-job]')
    const target = usable(before) ? before : usable(next) ? next : panel
    target?.focus()
  }, [running, sandbox])
}

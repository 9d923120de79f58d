import type { ReactNode } from 'react'
import { useWorkspace } from '../app/SandboxContext.tsx'

/** Renders `children` once a context exists; before that, says where to start. */
export function NeedsContext({ children, what }: { children: ReactNode; what: string }) {
  const { applied } = useWorkspace()
  if (applied) return <>{children}</>
  return (
    <div className="empty">
      <p>
        {what} need encryption parameters first. <a href="#parameters">Choose parameters and create the context</a>.
      </p>
    </div>
  )
}

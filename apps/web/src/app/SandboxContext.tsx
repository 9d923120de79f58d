import { createContext, type ReactNode, useContext, useSyncExternalStore } from 'react'
import type { Activity } from '../sandbox/activity.ts'
import type { Sandbox } from '../sandbox/Sandbox.ts'
import type { ServerView } from '../sandbox/serverView.ts'
import type { WorkspaceState } from '../workspace/workspaceState.ts'

const SandboxContext = createContext<Sandbox | undefined>(undefined)

/** Provides the one Sandbox controller to every panel. */
export function SandboxProvider({ sandbox, children }: { sandbox: Sandbox; children: ReactNode }) {
  return <SandboxContext.Provider value={sandbox}>{children}</SandboxContext.Provider>
}

/** The Sandbox controller (stores, worker, actions' target). */
export function useSandbox(): Sandbox {
  const sandbox = useContext(SandboxContext)
  if (!sandbox) throw new Error('useSandbox must be used inside <SandboxProvider>')
  return sandbox
}

/** The current workspace snapshot; re-renders when it changes. */
export function useWorkspace(): WorkspaceState {
  const { workspace } = useSandbox()
  return useSyncExternalStore(workspace.subscribe, workspace.getSnapshot)
}

/** The current activity (job, worker status, save status). */
export function useActivity(): Activity {
  const { activity } = useSandbox()
  return useSyncExternalStore(activity.subscribe, activity.getSnapshot)
}

/** The Server panel's connection and runs. */
export function useServerView(): ServerView {
  const { server } = useSandbox()
  return useSyncExternalStore(server.subscribe, server.getSnapshot)
}

import { HeError } from '@sealbox/he-core'
import { downloadFile } from '../../ui/files.ts'
import { clearStoredWorkspace } from '../../workspace/workspaceDb.ts'
import { decodeWorkspaceFile, encodeWorkspaceFile } from '../../workspace/workspaceFile.ts'
import { emptyWorkspace, type WorkspaceState } from '../../workspace/workspaceState.ts'
import type { Outcome, Sandbox } from '../Sandbox.ts'

/** Downloads the whole workspace as one file; the secret key only when asked for. */
export function exportWorkspace(sandbox: Sandbox, options: { includeSecretKey: boolean }): void {
  const state = sandbox.workspace.state
  const params = state.applied ? `-${state.applied.input.scheme}-${state.applied.input.polyModulusDegree}` : ''
  const name = `sealbox-workspace${params}${options.includeSecretKey ? '-with-secret-key' : ''}.json`
  downloadFile(name, encodeWorkspaceFile(state, options), 'application/json')
}

/**
 * Replaces the workspace and rebuilds the worker from it (a fresh worker, so nothing
 * of the old workspace stays in WASM memory).
 */
export async function replaceWorkspace(sandbox: Sandbox, state: WorkspaceState): Promise<void> {
  // A banner about the old workspace ("Opened a shared workspace…") says nothing about the new one.
  sandbox.activity.update((activity) => ({ ...activity, notice: undefined }))
  sandbox.workspace.update(() => state)
  sandbox.server.update((view) => ({ ...view, runs: [], searches: [] }))
  await sandbox.restart()
}

/** Reads a workspace file and makes it the workspace. */
export async function importWorkspace(sandbox: Sandbox, file: File): Promise<Outcome<void>> {
  try {
    const state = decodeWorkspaceFile(await file.text())
    await replaceWorkspace(sandbox, state)
    return { ok: true, value: undefined }
  } catch (error) {
    return { ok: false, error: error instanceof HeError ? error : new HeError('INVALID_INPUT', String(error)) }
  }
}

/** Starts over: an empty workspace, nothing kept in this browser. */
export async function resetWorkspace(sandbox: Sandbox): Promise<void> {
  sandbox.activity.update((activity) => ({ ...activity, notice: undefined }))
  await clearStoredWorkspace().catch(() => undefined)
  await replaceWorkspace(sandbox, emptyWorkspace())
}

import type { WorkspaceState } from '../workspace/workspaceState.ts'
import type { PanelId } from './panels.ts'

/** One-line state of each panel for the tab list ("BFV · n = 4096", "3 keys"). */
export function usePanelBadges(workspace: WorkspaceState): Partial<Record<PanelId, string>> {
  const badges: Partial<Record<PanelId, string>> = {}
  if (workspace.applied) {
    badges.parameters = `${workspace.applied.input.scheme.toUpperCase()} · n = ${workspace.applied.input.polyModulusDegree}`
  }
  const keyCount = [
    workspace.keys.secretKey,
    workspace.keys.publicKey,
    workspace.keys.relinKeys,
    workspace.keys.galoisKeys,
  ].filter(Boolean).length
  if (keyCount > 0) badges.keys = `${keyCount} key${keyCount === 1 ? '' : 's'}`
  const count = workspace.variables.length
  if (count > 0) badges.variables = `${count} variable${count === 1 ? '' : 's'}`
  if (workspace.pipeline.length > 0) {
    badges.functions = `${workspace.pipeline.length} step${workspace.pipeline.length === 1 ? '' : 's'}`
  }
  return badges
}

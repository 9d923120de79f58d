import { z } from 'zod'
import {
  deleteStoredRecord,
  listStoredWorkspaceIds,
  loadStoredRecord,
  saveStoredRecord,
  workspaceRecordKey,
} from './workspaceDb.ts'
import { WorkspaceState } from './workspaceState.ts'

/** Where the workspaces' names are kept: one record beside the workspaces, by record key. */
const NAMES_KEY = 'workspace-names'
const WorkspaceNames = z.record(z.string(), z.string().max(60))
export const MAX_WORKSPACE_NAME = 60

/** One saved workspace as the Workspaces list shows it. */
export interface WorkspaceListing {
  /** The `?workspace=` id; undefined for the usual workspace (no parameter). */
  id: string | undefined
  name: string
  /** "BFV, n = 4096 · 2 variables · 3 steps", or why it cannot be read. */
  summary: string
}

/** The name a workspace has until it is given one. */
export function defaultWorkspaceName(id: string | undefined): string {
  return id === undefined ? 'Main workspace' : `Workspace ${id.slice(0, 8)}`
}

async function loadNames(): Promise<Record<string, string>> {
  const parsed = WorkspaceNames.safeParse(await loadStoredRecord(NAMES_KEY))
  return parsed.success ? parsed.data : {}
}

function summaryOf(raw: unknown): string {
  const parsed = WorkspaceState.safeParse(raw)
  if (!parsed.success) return 'cannot be read by this version'
  const { applied, variables, pipeline } = parsed.data
  const params = applied
    ? `${applied.input.scheme.toUpperCase()}, n = ${applied.input.polyModulusDegree}`
    : 'no context'
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`
  return `${params} · ${count(variables.filter((v) => v.origin !== 'pipeline').length, 'variable')} · ${count(pipeline.length, 'step')}`
}

/** Every workspace saved in this browser, with its name and what it holds. */
export async function listWorkspaces(): Promise<WorkspaceListing[]> {
  const [ids, names] = await Promise.all([listStoredWorkspaceIds(), loadNames()])
  return Promise.all(
    ids.map(async (id) => ({
      id,
      name: names[workspaceRecordKey(id)] ?? defaultWorkspaceName(id),
      summary: summaryOf(await loadStoredRecord(workspaceRecordKey(id))),
    })),
  )
}

/** Names workspace `id` (an empty name goes back to the default). */
export async function renameWorkspace(id: string | undefined, name: string): Promise<void> {
  const names = await loadNames()
  const trimmed = name.trim().slice(0, MAX_WORKSPACE_NAME)
  if (trimmed === '') delete names[workspaceRecordKey(id)]
  else names[workspaceRecordKey(id)] = trimmed
  await saveStoredRecord(NAMES_KEY, names)
}

/** Deletes a saved workspace (keys, secret key included) and its name from this browser. */
export async function deleteWorkspace(id: string | undefined): Promise<void> {
  await deleteStoredRecord(workspaceRecordKey(id))
  const names = await loadNames()
  delete names[workspaceRecordKey(id)]
  await saveStoredRecord(NAMES_KEY, names)
}

/** The address of workspace `id` on this page (the usual one has no parameter). */
export function workspaceUrl(id: string | undefined): string {
  const url = new URL(window.location.href)
  if (id === undefined) url.searchParams.delete('workspace')
  else url.searchParams.set('workspace', id)
  url.hash = 'parameters'
  return url.toString()
}

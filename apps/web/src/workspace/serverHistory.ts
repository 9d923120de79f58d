import { z } from 'zod'
import type { ServerView } from '../sandbox/serverView.ts'
import { executorChoice, remoteOutput, serverSearchedReply, serverWork } from '../worker/serverProtocol.ts'
import { loadStoredRecord, saveStoredRecord } from './workspaceDb.ts'

/*
 * The Server panel's history, kept across reloads beside the workspace (IndexedDB):
 * the pipeline and search runs as shown, and whether the page was connected (to
 * reconnect to the workspace's server URL). The session itself (token, uploaded keys)
 * lives in the worker and is made again.
 */

const RECORD_KEY = 'serverHistory'

const requested = z.union([executorChoice, z.string()])
const remoteRun = z.object({
  id: z.number().int().positive(),
  requested,
  outputs: z.array(remoteOutput),
  stepMs: z.array(z.number()),
  work: serverWork,
  keyUpload: z.object({ bytes: z.number(), ms: z.number() }).optional(),
  at: z.number(),
})
const searchRun = serverSearchedReply
  .omit({ type: true, id: true })
  .extend({ id: z.number().int().positive(), requested, vector: z.array(z.number()), at: z.number() })

/** What is stored: runs, searches and whether the page was connected. */
export const ServerHistory = z.object({
  version: z.literal(1),
  connected: z.boolean(),
  runs: z.array(remoteRun),
  searches: z.array(searchRun),
})
export type ServerHistory = z.infer<typeof ServerHistory>

/** The history to store for a view. */
export function historyOf(view: ServerView, connected: boolean): ServerHistory {
  return { version: 1, connected, runs: view.runs, searches: view.searches }
}

/** The stored history, or undefined when there is none or it no longer parses (it is only a history). */
export async function loadServerHistory(): Promise<ServerHistory | undefined> {
  const parsed = ServerHistory.safeParse(await loadStoredRecord(RECORD_KEY))
  return parsed.success ? parsed.data : undefined
}

/** Replaces the stored history. */
export function saveServerHistory(history: ServerHistory): Promise<void> {
  return saveStoredRecord(RECORD_KEY, history)
}

/**
 * The id of the next run, pipeline or search alike: one counter for both, continuing
 * after the restored history.
 */
export function nextRunId(view: Pick<ServerView, 'runs' | 'searches'>): number {
  return Math.max(0, ...view.runs.map((r) => r.id), ...view.searches.map((s) => s.id)) + 1
}

import type { RemoteOutput, ServerConnected, ServerSearched, ServerWorkReport } from '../worker/serverProtocol.ts'

/** One run of the pipeline on the server. */
export interface RemoteRun {
  id: number
  /** What was asked for ('default': the server's own choice). */
  requested: string
  outputs: RemoteOutput[]
  stepMs: number[]
  work: ServerWorkReport
  /** Key upload that preceded this run, if any. */
  keyUpload?: { bytes: number; ms: number }
  at: number
}

/** One private search. */
export interface SearchRun extends Omit<ServerSearched, 'type' | 'id'> {
  id: number
  requested: string
  vector: number[]
  at: number
}

/** The Server panel's live state: connection, uploads and runs (not persisted; the worker holds the session). */
export interface ServerView {
  connection?: Omit<ServerConnected, 'type' | 'id'>
  /** Evaluation keys uploaded for the workspace's key set: name on the server and what was sent. */
  uploaded?: { name: string; signature: string; bytes: number }
  runs: RemoteRun[]
  searches: SearchRun[]
}

export const EMPTY_SERVER_VIEW: ServerView = { runs: [], searches: [] }

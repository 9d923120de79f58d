import { type WorkspaceState, WorkspaceState as WorkspaceStateSchema } from './workspaceState.ts'

/*
 * IndexedDB persistence of the workspace: one record, written after changes settle.
 * IndexedDB stores structured clones, so envelopes (Uint8Array) and bigints are kept
 * as they are. The secret key is stored here, in this browser's own storage, and
 * nowhere else unless the user downloads it.
 */

const DB_NAME = 'sealbox'
const DB_VERSION = 1
const STORE = 'workspace'
const RECORD_KEY = 'current'
/** `?workspace=<id>` in the page's address: a workspace of its own beside the usual one. */
export const WORKSPACE_PARAM = 'workspace'

/**
 * The record a workspace lives in: `current`, or `workspace:<id>` for `?workspace=<id>`
 * (a shared link opened "in a new workspace" gets one, so it never replaces the workspace,
 * and secret key, of the tab it was pasted into). Without an argument: this page's; with
 * `undefined`: the usual workspace's.
 */
export function workspaceRecordKey(...args: [] | [id: string | undefined]): string {
  // No argument: this page's workspace; `undefined` given: the usual one.
  const id = args.length === 0 ? pageWorkspaceId() : args[0]
  return id === undefined ? RECORD_KEY : `${STORE}:${id}`
}

/** The valid id in this page's `?workspace=<id>`, or undefined for the usual workspace. */
export function pageWorkspaceId(): string | undefined {
  const id = new URLSearchParams(window.location.search).get(WORKSPACE_PARAM)
  return id && /^[\w-]{1,64}$/.test(id) ? id : undefined
}

function openDb(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, DB_VERSION)
    request.onupgradeneeded = () => {
      if (!request.result.objectStoreNames.contains(STORE)) request.result.createObjectStore(STORE)
    }
    request.onsuccess = () => resolve(request.result)
    request.onerror = () => reject(request.error ?? new Error('IndexedDB open failed'))
    request.onblocked = () => reject(new Error('IndexedDB is blocked by another tab'))
  })
}

function done<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result)
    request.onerror = () => reject(request.error ?? new Error('IndexedDB request failed'))
  })
}

/** What was found in storage: a workspace, nothing, or a record that no longer parses. */
export type StoredWorkspace =
  | { status: 'found'; state: WorkspaceState }
  | { status: 'empty' }
  | { status: 'invalid'; reason: string }

/** Reads the saved workspace. */
export async function loadStoredWorkspace(): Promise<StoredWorkspace> {
  const db = await openDb()
  try {
    const raw = await done(db.transaction(STORE, 'readonly').objectStore(STORE).get(workspaceRecordKey()))
    if (raw === undefined) return { status: 'empty' }
    const parsed = WorkspaceStateSchema.safeParse(raw)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      return { status: 'invalid', reason: `${issue?.path.join('.') || 'workspace'}: ${issue?.message}` }
    }
    return { status: 'found', state: parsed.data }
  } finally {
    db.close()
  }
}

/** Writes the workspace (replacing the saved one). */
export async function saveStoredWorkspace(state: WorkspaceState): Promise<void> {
  const db = await openDb()
  try {
    const tx = db.transaction(STORE, 'readwrite')
    tx.objectStore(STORE).put(state, workspaceRecordKey())
    await new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve()
      tx.onerror = () => reject(tx.error ?? new Error('IndexedDB write failed'))
      tx.onabort = () => reject(tx.error ?? new Error('IndexedDB write aborted (storage full?)'))
    })
  } finally {
    db.close()
  }
}

/** Deletes the saved workspace. */
export async function clearStoredWorkspace(): Promise<void> {
  const db = await openDb()
  try {
    await done(db.transaction(STORE, 'readwrite').objectStore(STORE).delete(workspaceRecordKey()))
  } finally {
    db.close()
  }
}

/** Reads another record of the sandbox's store (e.g. the Server panel's history); undefined when absent. */
export async function loadStoredRecord(key: string): Promise<unknown> {
  const db = await openDb()
  try {
    return await done(db.transaction(STORE, 'readonly').objectStore(STORE).get(key))
  } finally {
    db.close()
  }
}

/** Writes another record of the sandbox's store (structured clone: bigints kept). */
export async function saveStoredRecord(key: string, value: unknown): Promise<void> {
  const db = await openDb()
  try {
    await done(db.transaction(STORE, 'readwrite').objectStore(STORE).put(value, key))
  } finally {
    db.close()
  }
}

/** Every workspace saved in this browser: the usual one (id undefined) and each `?workspace=<id>`. */
export async function listStoredWorkspaceIds(): Promise<Array<string | undefined>> {
  const db = await openDb()
  try {
    const keys = await done(db.transaction(STORE, 'readonly').objectStore(STORE).getAllKeys())
    const ids: Array<string | undefined> = []
    for (const key of keys) {
      if (key === RECORD_KEY) ids.unshift(undefined)
      else if (typeof key === 'string' && /^workspace:[\w-]{1,64}$/.test(key)) ids.push(key.slice(STORE.length + 1))
    }
    return ids
  } finally {
    db.close()
  }
}

/** Deletes another record of the sandbox's store (e.g. a workspace that is not open here). */
export async function deleteStoredRecord(key: string): Promise<void> {
  const db = await openDb()
  try {
    await done(db.transaction(STORE, 'readwrite').objectStore(STORE).delete(key))
  } finally {
    db.close()
  }
}

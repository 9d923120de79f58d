import { type GaloisKeyChoice, HeError, type KeyKind } from '@sealbox/he-core'
import { peekEnvelope } from '@sealbox/he-core/envelope'
import { downloadFile, readFileBytes } from '../../ui/files.ts'
import type { KeyReport } from '../../worker/protocol.ts'
import { KEY_NOUNS } from '../../workspace/keyNouns.ts'
import type { KeyEntry, KeysState, WorkspaceState } from '../../workspace/workspaceState.ts'
import type { Outcome, Sandbox } from '../Sandbox.ts'

/** What to generate: evaluation keys are made for exactly what is chosen. */
export interface KeyChoice {
  freshSecretKey: boolean
  relin: boolean
  galois: GaloisKeyChoice
  seeded: boolean
}

/** Each key's title on the Keys panel. */
export const KEY_LABELS: Record<KeyKind, string> = {
  secretKey: 'Secret key',
  publicKey: 'Public key',
  relinKeys: 'Relinearization keys',
  galoisKeys: 'Galois keys',
}

function entryOf(report: KeyReport, source: KeyEntry['source']): KeyEntry {
  return {
    kind: report.kind,
    ...(report.envelope ? { envelope: report.envelope } : {}),
    bytes: report.bytes,
    ...(report.ms === undefined ? {} : { ms: report.ms }),
    seeded: report.seeded,
    ...(report.steps ? { steps: report.steps } : {}),
    source,
    createdAt: Date.now(),
  }
}

/**
 * Records keys from the worker. A new key set replaces every key; the same key set
 * keeps the keys not in `reports` unless `replace` lists their kind (a regeneration
 * without relin keys drops the old relin keys, as the worker did).
 */
export function recordKeys(
  state: WorkspaceState,
  keySetId: string,
  reports: readonly KeyReport[],
  source: KeyEntry['source'],
  options: { replace?: readonly KeyKind[]; dropped?: readonly string[] } = {},
): WorkspaceState {
  const sameSet = state.keys.keySetId === keySetId
  const keys: KeysState = sameSet ? { ...state.keys } : { keySetId }
  for (const kind of options.replace ?? []) {
    if (keys[kind]?.source === 'generated') delete keys[kind]
  }
  for (const report of reports) keys[report.kind] = entryOf(report, source)
  keys.keySetId = keySetId
  const dropped = new Set(options.dropped ?? [])
  const variables = state.variables.filter((v) => !dropped.has(v.name))
  return { ...state, keys, variables }
}

/** Generates keys in the worker (cancellable: the worker restarts and the workspace is restored). */
export async function generateKeys(sandbox: Sandbox, choice: KeyChoice): Promise<Outcome<void>> {
  const parts = ['secret', 'public']
  if (choice.relin) parts.push('relinearization')
  if (choice.galois) parts.push('Galois')
  return sandbox.run(
    `Generating ${parts.join(', ')} keys`,
    async ({ onProgress }) => {
      const reply = await sandbox.worker.request({ type: 'generateKeys', ...choice }, { onProgress })
      sandbox.noteHeap(reply.heapBytes)
      // Saved before shown: a reload right after "ready" keeps the new keys.
      await sandbox.commit((state) =>
        recordKeys(state, reply.keySetId, reply.keys, 'generated', {
          replace: ['relinKeys', 'galoisKeys'],
          dropped: reply.dropped,
        }),
      )
    },
    { cancellable: true },
  )
}

/** What loading another key set's secret key would remove from the workspace. */
export interface SecretKeySwitch {
  /** Evaluation keys of the current key set (they cannot work with another secret key). */
  keys: KeyKind[]
  /** Ciphertexts of the current key set (another secret key cannot decrypt them). */
  ciphertexts: string[]
}

/**
 * Reads a secret-key file's key-set id (header only, no SEAL) and says what loading it
 * would remove, or undefined when it removes nothing (same key set, no key yet, or
 * not a secret-key file: the upload itself then says what is wrong).
 */
export async function secretKeySwitchOf(state: WorkspaceState, file: File): Promise<SecretKeySwitch | undefined> {
  if (!state.keys.secretKey || !state.keys.keySetId) return undefined
  let keySetId: string | undefined
  try {
    const header = peekEnvelope(await readFileBytes(file))
    if (header.kind !== 'secretKey') return undefined
    keySetId = header.keySetId
  } catch {
    return undefined
  }
  if (keySetId === state.keys.keySetId) return undefined
  return {
    keys: (['relinKeys', 'galoisKeys'] as const).filter((kind) => state.keys[kind] !== undefined),
    ciphertexts: state.variables.filter((v) => v.kind === 'ciphertext').map((v) => v.name),
  }
}

/** Loads a key file; the worker checks kind, parameters and key set before SEAL sees it. */
export async function uploadKey(sandbox: Sandbox, kind: KeyKind, file: File): Promise<Outcome<void>> {
  return sandbox.run(`Loading ${KEY_NOUNS[kind]} from ${file.name}`, async () => {
    const envelope = await readFileBytes(file)
    const reply = await sandbox.worker.request({ type: 'loadKey', kind, envelope }, { transfer: [envelope.buffer] })
    sandbox.noteHeap(reply.heapBytes)
    await sandbox.commit((state) =>
      recordKeys(state, reply.keySetId, reply.keys, 'uploaded', { dropped: reply.dropped }),
    )
  })
}

/** File name of a downloaded key: what it is and which parameters it belongs to. */
export function keyFileName(state: WorkspaceState, kind: KeyKind): string {
  const applied = state.applied
  const params = applied ? `${applied.input.scheme}-${applied.input.polyModulusDegree}` : 'keys'
  const seeded = state.keys[kind]?.seeded ? '-seeded' : ''
  // The key set as the Keys panel shows it, so two key sets' files never share a name.
  const keySet = state.keys.keySetId ? `.${state.keys.keySetId.slice(0, 8)}` : ''
  return `${kind}${seeded}${keySet}.${params}.sbx`
}

/** Downloads a key as an envelope file (serialized on demand when it was too large to keep). */
export async function downloadKey(sandbox: Sandbox, kind: KeyKind): Promise<Outcome<void>> {
  const state = sandbox.workspace.state
  const entry = state.keys[kind]
  if (!entry)
    return {
      ok: false,
      error: new HeError('MISSING_KEY', `Nothing to download: this workspace has no ${KEY_NOUNS[kind]}.`),
    }
  if (entry.envelope) {
    downloadFile(keyFileName(state, kind), entry.envelope)
    return { ok: true, value: undefined }
  }
  return sandbox.run(`Serializing ${KEY_NOUNS[kind]}`, async () => {
    const reply = await sandbox.worker.request({ type: 'exportKey', kind, seeded: entry.seeded })
    downloadFile(keyFileName(state, kind), reply.envelope)
  })
}

/** Removes evaluation keys (the secret key takes every key and ciphertext with it). */
export async function removeKeys(sandbox: Sandbox, kinds: KeyKind[]): Promise<Outcome<void>> {
  return sandbox.run('Removing keys', async () => {
    const all = kinds.includes('secretKey')
    await sandbox.worker.request({ type: 'dropKeys', kinds: all ? ['secretKey'] : kinds })
    if (all) {
      const ciphertexts = sandbox.workspace.state.variables.filter((v) => v.kind === 'ciphertext')
      for (const variable of ciphertexts) await sandbox.worker.request({ type: 'dropVariable', name: variable.name })
    }
    sandbox.workspace.update((state) => {
      if (all) return { ...state, keys: {}, variables: state.variables.filter((v) => v.kind !== 'ciphertext') }
      const keys = { ...state.keys }
      for (const kind of kinds) delete keys[kind]
      return { ...state, keys }
    })
  })
}
